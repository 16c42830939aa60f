# Every program the package installs answers --help and --version and has
# a man page; skinctl, skinsim and skind have their bash completion;
# the configuration, examples and scenarios it installs are valid as
# installed (their geometry and configuration files are found relative to
# them).
. "$SKIN_PAYLOAD/lib.sh"

progs=$(dpkg -L skin | grep -E '^/usr/s?bin/.')
[ -n "$progs" ] || fail "no programs in the package"
for p in $progs; do
	n=$(basename "$p")
	"$p" --help >/tmp/help || fail "$n --help: exit $?"
	grep -qi usage /tmp/help || fail "$n --help says no usage"
	"$p" --version >/tmp/version || fail "$n --version: exit $?"
	grep -Eqx "$n [0-9][0-9.]*" /tmp/version || fail "$n --version: $(cat /tmp/version)"
	dpkg -L skin | grep -Eq "/usr/share/man/man[18]/$n\.[18]\.gz$" || fail "no man page for $n"
	echo "ok: $n --help, man page"
done
dpkg -L skin | grep -q '/usr/share/man/man5/skind.conf.5.gz$' || fail "no skind.conf(5)"
for n in skinctl skinsim skind; do
	dpkg -L skin | grep -q "^/usr/share/bash-completion/completions/$n\$" ||
		fail "no bash completion for $n"
done
skinctl layout /etc/skin/skind.conf
# the examples and scenarios find their files where they are installed
for f in /etc/skin/examples/*.conf; do
	skinctl layout "$f" >/dev/null || fail "$f: not valid as installed"
	echo "ok: $f"
done
for f in /etc/skin/scenarios/*.scn; do
	skinsim --list "$f" >/dev/null || fail "$f: skinsim --list fails"
	echo "ok: $f"
done
