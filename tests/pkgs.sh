# missing_pkgs PKG...: those of the Debian packages that are not installed,
# space-separated (nothing when all are).  Sourced by tests/integration/lib.sh
# and tests/vm/guest.sh for their prereq_missing.
missing_pkgs() {
	local p out=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || out="$out $p"
	done
	echo "${out# }"
}
