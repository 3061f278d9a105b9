# A system install end to end, run by TestSystemModeInNamespace inside a
# private mount namespace (unshare -m) as root: /etc, /usr/local and
# /var/lib are overlays onto a temp folder, so nothing here reaches the
# real ones. The agent's user is nobody (setpriv). Every check prints one
# "ok:" or "FAIL:" line.
#
# $1: the runaway binary; $2: a temp folder (mode 0755).
set -u
BIN=$1
T=$2
for d in etc usr/local var/lib; do
	n=$(echo "$d" | tr / _)
	mkdir -p "$T/$n/u" "$T/$n/w"
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$T/$n/u,workdir=$T/$n/w" "/$d" || { echo "FAIL: overlay on /$d"; exit 1; }
done

check() { # check NAME COMMAND...: ok when the command succeeds
	name=$1
	shift
	if "$@" >"$T/out" 2>&1; then echo "ok: $name"; else echo "FAIL: $name"; cat "$T/out"; fi
}
refuse() { # refuse NAME COMMAND...: ok when the command fails
	name=$1
	shift
	if "$@" >"$T/out" 2>&1; then echo "FAIL: $name (it succeeded)"; cat "$T/out"; else echo "ok: $name"; fi
}
tree() { find /etc/runaway /var/lib/runaway /usr/local/bin/runaway /etc/claude-code /etc/codex /etc/gemini-cli \
	-printf '%p %u:%g %m\n' 2>/dev/null | sort; }
statefiles() { find /var/lib/runaway -type f -printf '%p %s %u:%g %m\n' -exec sha256sum {} \; | sort; }

U="setpriv --reuid 65534 --regid 65534 --clear-groups env -i PATH=/usr/bin:/bin HOME=$T/home"
mkdir -p "$T/home/.config/runaway" && chown -R 65534:65534 "$T/home"

# A transcript of $6.00 (2,000,000 input tokens of claude-sonnet-4-6), the agent user's.
cat >"$T/home/t.jsonl" <<'EOF'
{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-11-30T10:00:01Z","message":{"id":"msg_1","model":"claude-sonnet-4-6","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls 1"}}],"usage":{"input_tokens":2000000,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}
EOF
echo "{\"session_id\":\"s1\",\"transcript_path\":\"$T/home/t.jsonl\",\"cwd\":\"$T/home\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_use_id\":\"toolu_2\"}" >"$T/call.json"
chown 65534:65534 "$T/home/t.jsonl"

before=$(tree)
check "setup --system as root" "$BIN" setup --system --yes --cap 5 --harness claude,codex,gemini
R=/usr/local/bin/runaway
check "the program is root's and setgid runaway" sh -c "stat -c '%U %G %a' $R | grep -qx 'root runaway 2755'"
check "the state folder is root:runaway 2770" sh -c "stat -c '%U %G %a' /var/lib/runaway | grep -qx 'root runaway 2770'"
check "the config is root's 0644" sh -c "stat -c '%U %a' /etc/runaway/config.json | grep -qx 'root 644'"
check "Claude Code's drop-in runs the program without a shell" grep -q '"args"' /etc/claude-code/managed-settings.d/runaway.json

check "doctor as the agent's user: every check ok but what stays open" sh -c "$U $R doctor 2>&1 | tee $T/doc | grep -q '^ok  *managed-codex' && ! grep -v -e '^ok' -e '^warn  *system-open' $T/doc"
check "doctor as root: every check ok but what stays open" sh -c "$R doctor 2>&1 | tee $T/doc | grep -q '^ok  *managed-claude' && ! grep -v -e '^ok' -e '^warn  *system-open' $T/doc"
check "doctor says what a system install does not hold" sh -c "$R doctor | grep '^warn  *system-open' | grep 'kill its own hook' | grep 'SHELL' | grep -q GEMINI_CLI_SYSTEM_SETTINGS_PATH"

# The agent's user: the hook stops the session at the cap.
check "the hook, as the agent's user, stops at the cap" sh -c "$U $R hook claude <$T/call.json | grep -q '\"continue\":false'"
check "the state was written, group runaway" sh -c "stat -c '%G %a' /var/lib/runaway/sessions/claude-s1.json | grep -qx 'runaway 660'"

# Limits from the agent's environment or the user's config only lower.
echo '{"session_cap_usd": 1000}' >"$T/home/.config/runaway/config.json"
chown 65534:65534 "$T/home/.config/runaway/config.json"
check "RUNAWAY_SESSION_CAP_USD=1000 and a user config of 1000 do not raise the cap" sh -c \
	"$U RUNAWAY_SESSION_CAP_USD=1000 RUNAWAY_HOOK_DEADLINE=1h XDG_STATE_HOME=$T/home/st XDG_CONFIG_HOME=$T/home/.config $R hook claude <$T/call.json | grep -q '\"continue\":false'"
refuse "XDG_STATE_HOME did not move the state" test -e "$T/home/st"
check "the stop names sudo runaway allow" sh -c "$U $R hook claude <$T/call.json | grep -q 'sudo runaway allow s1'"

# The agent's user cannot reach the state, by any command.
saved=$(statefiles)
refuse "list the state folder" $U ls /var/lib/runaway
refuse "write a session file" $U sh -c "echo {} > /var/lib/runaway/sessions/claude-s1.json"
refuse "remove the session file" $U rm -f /var/lib/runaway/sessions/claude-s1.json
refuse "move the state folder" $U mv /var/lib/runaway /var/lib/runaway.old
refuse "replace the program" $U cp /bin/true $R
refuse "edit the system config" $U sh -c "echo '{}' > /etc/runaway/config.json"
refuse "edit Claude Code's managed drop-in" $U sh -c "echo '{}' > /etc/claude-code/managed-settings.d/runaway.json"
refuse "edit Codex's requirements.toml" $U sh -c "echo > /etc/codex/requirements.toml"
refuse "edit Gemini CLI's system settings" $U sh -c "echo '{}' > /etc/gemini-cli/settings.json"

# The off switch needs root: allow, remove, setup, by any path or copy.
refuse "allow as the agent's user" $U $R allow --add 10
check "allow as the agent's user says sudo" sh -c "$U $R allow --add 10 2>&1 | grep -q '^hint: sudo runaway allow --add 10'"
cp $R "$T/copy" && chmod 755 "$T/copy"
refuse "allow from a copy of the program" $U "$T/copy" allow --add 10
refuse "remove --system as the agent's user" $U $R remove --system --yes
refuse "remove (user mode) as the agent's user" $U $R remove --yes
refuse "setup as the agent's user" $U $R setup --yes --cap 1000
refuse "allow as root of a user namespace with its own PID namespace and /proc" $U unshare -rpf --mount-proc $R allow --add 10
refuse "remove --system as root of a user namespace" $U unshare -r $R remove --system --yes
now=$(statefiles)
if [ "$saved" = "$now" ]; then echo "ok: state files byte-identical after the attempts"; else echo "FAIL: state files changed"; diff <(echo "$saved") <(echo "$now"); fi
check "the next over-cap call is still stopped" sh -c "$U $R hook claude <$T/call.json | grep -q '\"continue\":false'"

# The person, as root, raises the cap: the next call goes on.
check "allow as root raises the cap" sh -c "$R allow --add 10 | grep -q 'by \$10.00 to \$15.00'"
sed 's/"command":"ls"/"command":"ls next"/; s/toolu_2/toolu_3/' "$T/call.json" >"$T/call2.json"
$U $R hook claude <"$T/call2.json" >"$T/next"
if [ -s "$T/next" ]; then echo "FAIL: the next call goes on"; cat "$T/next"; else echo "ok: the next call goes on"; fi
# A transcript that turns into something else stops the session until root allows it.
n=0
for attack in "cp $T/home/t.jsonl $T/home/t2 && mv $T/home/t2 $T/home/t.jsonl|replaced by another file" \
	"head -c 10 $T/home/t.jsonl > $T/home/t2 && cat $T/home/t2 > $T/home/t.jsonl|shrank" \
	"cp $T/home/t.jsonl $T/home/t3 && ln -sf $T/home/t3 $T/home/t.jsonl|replaced by a link"; do
	n=$((n + 1))
	sed "s/\"command\":\"ls\"/\"command\":\"ls t$n\"/; s/toolu_2/toolu_t$n/" "$T/call.json" >"$T/callt.json"
	$U sh -c "${attack%%|*}"
	check "transcript ${attack##*|}: the session is stopped" sh -c "$U $R hook claude <$T/callt.json | grep -q '${attack##*|}.*\"continue\":false\|continue\":false.*${attack##*|}'"
	check "transcript ${attack##*|}: still stopped at the next call" sh -c "$U $R hook claude <$T/call2.json | grep -q '\"continue\":false'"
	if [ $n -lt 3 ]; then
		check "transcript ${attack##*|}: sudo runaway allow lets it go on" sh -c "$R allow s1 --add 1 >/dev/null && test -z \"\$($U $R hook claude <$T/callt.json)\""
	else
		check "transcript ${attack##*|}: a link still in place stops it again after allow" sh -c "$R allow s1 --add 1 >/dev/null && $U $R hook claude <$T/callt.json | grep -q '\"continue\":false'"
	fi
done
check "status says which mode guards" sh -c "$U $R status | grep -q 'system install'"

chmod 2777 /var/lib/runaway/sessions
check "doctor fails a state folder others can write" sh -c "$R doctor | grep -q '^fail  *system-files  */var/lib/runaway/sessions has mode 2777, want 2770'"
chmod 2770 /var/lib/runaway/sessions

# remove --system is the exact inverse.
check "remove --system as root" "$BIN" remove --system --yes
after=$(tree)
if [ "$before" = "$after" ]; then echo "ok: remove --system left every system path as before"; else echo "FAIL: remove --system left"; diff <(echo "$before") <(echo "$after"); fi
refuse "the group is gone" getent group runaway
