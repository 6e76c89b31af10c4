# Spack recipe for hmpt (copy into a Spack repository as
# packages/hmpt/package.py).  Its build steps are the project's own: `make`,
# then `make install PREFIX=<prefix>`; Spack's compiler wrappers pass the
# dependencies' include and library directories.  See docs/install.md.
from spack.package import *


class Hmpt(MakefilePackage):
    """hmpt, the heterogeneous memory pool tuner: an LD_PRELOAD malloc shim
    that profiles and places allocations by call site, hmpt-tune to search
    for the placement, and hmpt-bench to measure the pools."""

    homepage = "https://example.invalid/hmpt"  # no public home yet
    git = "https://example.invalid/hmpt.git"

    version("main", branch="main")

    depends_on("c", type="build")
    depends_on("cxx", type="build")  # hmpt-tune links -lstdc++
    depends_on("gmake", type="build")
    depends_on("numactl")
    depends_on("libunwind", type=("build", "link", "run"))  # dlopen()ed by the shim
    depends_on("libpfm4")
    depends_on("jansson")
    depends_on("elfutils")  # libdw and libelf
    # the memkind pool backend: libmemkind.so.0 is opened when a plan asks
    depends_on("memkind", type="run", when="+memkind")
    variant("memkind", default=False, description="Install memkind for the memkind pool backend")

    def build(self, spec, prefix):
        make()

    def install(self, spec, prefix):
        make("install", "PREFIX={0}".format(prefix))
