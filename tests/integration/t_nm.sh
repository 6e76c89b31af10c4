. "$(dirname "$0")/lib.sh"
# the shim exports the malloc family, mallopt, the exit hooks,
# pthread_create, the limits, the calls that change mappings and hmpt_*,
# nothing else
want="_Exit _exit aligned_alloc calloc free hmpt_profile_write hmpt_version malloc
malloc_usable_size mallopt memalign posix_memalign pthread_create pvalloc realloc reallocarray valloc"
# the calls that change mappings (mapcalls.c)
want="$want madvise mlock mlock2 mmap mmap64 mprotect mremap munlock munmap pkey_mprotect"
# the limits a program may set after start (limits.c)
want="$want mlockall prlimit prlimit64 setrlimit setrlimit64"
got=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TWiV]$/ { print $3 }' | sed 's/@.*//' | sort | tr '\n' ' ')
[ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] || fail "exports: $got"
# libpfm4 is opened when sampling asks for it and libnuma is not used: the
# loader must not map either into every program (start-up, bench/startup.c)
needed=$(readelf -d "$LIB" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case " $needed" in *" libpfm"* | *" libnuma"*) fail "libhmpt.so needs $needed" ;; esac
note "exports as listed; NEEDED: $needed"
