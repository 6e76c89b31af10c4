/* profile_format.h — what names the profile format (docs/profile-format.md):
 * the shim writes it (shim/profile.c), hmpt-tune reads it (tuner/profiles.c).
 */
#ifndef HMPT_PROFILE_FORMAT_H
#define HMPT_PROFILE_FORMAT_H

#define HMPT_PROFILE_FORMAT "hmpt-profile"
/* 2: site ids leave out runtime frames and the depth counts the frames
 * that remain (siteid.h); hmpt-tune reads version 1 too */
#define HMPT_PROFILE_VERSION 2

#endif
