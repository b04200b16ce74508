# Functions the shell stand-ins for Node helpers share (test/support/fake-agent.sh,
# test/e2e/support/agent.sh), written into each where it says @LIB@.

# fa_read_stdin: sets fa_stdin and fa_prompt to stdin's bytes, a NUL (which a variable cannot
# hold) read as \001, and fa_read; fails having read nothing if stdin cannot be read (closed).
fa_read=
fa_read_stdin() {
  fa_stdin=$(tr '\000' '\001' 2>/dev/null && echo .) || return 1
  fa_stdin=${fa_stdin%.}
  fa_prompt=$fa_stdin fa_read=1
}

# fa_exec COMMAND...: hands the call to COMMAND (the Node helper): runs it in place of this
# script, or, once stdin is read, feeds it stdin's bytes again — a \001 as the NUL it was read
# from, so that a \001 byte of the prompt itself reaches it as a NUL.
fa_exec() {
  if [ "$fa_read" ]; then
    printf '%s' "$fa_stdin" | tr '\001' '\000' | "$@"
    exit
  fi
  exec "$@"
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
