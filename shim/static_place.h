/* static_place.h — static data placement.
 *
 * The static objects statics.c found become sites (before sampling
 * starts); those the plan names get their pool's node policy and page
 * advice, their present pages moved, charged to the pool like a block of
 * the same size.  Static data is mapped before main, so pools that make
 * their own memory (memkind, hugetlbfs) cannot take it: it goes along the
 * fallback chain.
 */
#ifndef HMPT_STATIC_PLACE_H
#define HMPT_STATIC_PLACE_H

/* In the constructor, with the guard held, once the sites are set up. */
void hmpt_static_place_register(void);

#endif
