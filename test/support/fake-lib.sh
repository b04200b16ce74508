# Functions the shell stand-ins for Node helpers share (test/support/fake-agent.sh,
# test/e2e/support/agent.sh), written into each where it says @LIB@.

# fa_read_stdin: sets fa_stdin and fa_prompt to stdin's bytes, a NUL (which a variable cannot
# hold) read as \001, and fa_read; fails having read nothing if stdin cannot be read (closed).
# A call handed to Node after this gets them fed again (fa_node).
fa_read_stdin() {
  fa_stdin=$(tr '\000' '\001' 2>/dev/null && echo .) || return 1
  fa_stdin=${fa_stdin%.}
  fa_prompt=$fa_stdin fa_read=1
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
