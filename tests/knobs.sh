# Kernel settings that a test changes for its run (root only: sysfs, /proc/sys),
# put back whatever becomes of the test (sourced by tests/run.sh and lib.sh).
# lib.sh's set_knob FILE VALUE takes $knob_lock, which the test then holds to
# its end, so that such tests take turns, from any checkout on this machine;
# it records FILE's value in $knob_record before it writes VALUE, and the
# test's EXIT trap puts the recorded values back.  A test killed before its
# trap ran leaves the record: tests/run.sh puts it back after every test (and
# before the first), and so does the next set_knob before it reads a value.
knob_lock=/tmp/hmpt-test-knobs.lock
knob_record=/tmp/hmpt-test-knobs.restore

# knobs_restore: put back every recorded value (the caller holds the lock)
knobs_restore() {
	local file value rc=0
	[ -f $knob_record ] || return 0
	while IFS=$'\t' read -r file value; do
		echo "$value" >"$file" || { echo "could not put $file back to $value" >&2; rc=1; }
	done <$knob_record
	[ $rc = 0 ] && rm -f $knob_record
	return $rc
}

# knobs_put_back: knobs_restore under the lock, where a record was left
knobs_put_back() {
	[ -f $knob_record ] || return 0
	(flock -w 120 9 && knobs_restore) 9>>$knob_lock
}
