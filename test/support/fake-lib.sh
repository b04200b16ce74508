# Functions the shell stand-ins for Node helpers share (test/support/fake-agent.sh,
# test/e2e/support/agent.sh), written into each where it says @LIB@.

# fa_read_stdin FILE: reads stdin into FILE.PID, makes that file this process's stdin (so that a
# call handed to Node reads the very bytes) and sets fa_prompt to them, a NUL (which a variable
# cannot hold) read as \001. Fails having read nothing where FILE.PID is there already (a leftover
# of a killed process) or stdin cannot be read (closed).
fa_read_stdin() {
  fa_tmp=$1.$$
  set -C
  if ! { true >"$fa_tmp"; } 2>/dev/null; then
    set +C
    return 1
  fi
  set +C
  if ! cat >>"$fa_tmp" 2>/dev/null; then
    rm -f "$fa_tmp"
    return 1
  fi
  exec <"$fa_tmp"
  fa_prompt=$(tr '\000' '\001' <"$fa_tmp"; echo .)
  rm -f "$fa_tmp"
  fa_prompt=${fa_prompt%.}
}

# fa_json TEXT: sets fa_j to TEXT as JSON.stringify writes it; fails on a character other than
# printable ASCII (where only `"` and `\` are escaped).
fa_json() {
  case $1 in *[!"$fa_print"]*) return 1 ;; esac
  fa_js=$1 fa_j=
  while :; do
    case $fa_js in
      *[\"\\]*)
        fa_jh=${fa_js%%[\"\\]*}
        fa_js=${fa_js#"$fa_jh"}
        fa_j="$fa_j$fa_jh\\${fa_js%"${fa_js#?}"}"
        fa_js=${fa_js#?}
        ;;
      *)
        fa_j="\"$fa_j$fa_js\""
        return 0
        ;;
    esac
  done
}
