#!/bin/sh
# The end-to-end tests' scripted agent and host as /bin/sh, written from test/e2e/support/agent.sh
# by test/e2e/support/agent-sh.ts. It does what test/e2e/support/agent.ts does — the same log
# lines, answer, files — for the calls it is sure to do alike, without a Node start-up per call,
# and hands every other call to agent.ts unchanged, its prompt included: a prompt or a setting
# beyond printable ASCII, a host prompt it cannot read as agent.ts reads it, a file of scripted
# answers that is not plain JSON.stringify output, a file it might fail to write. Its variables are
# named fa_* so as to change none of the environment agent.ts sees.

# Hands the call to agent.ts (fa_exec).
fa_node() { fa_exec @NODE_AGENT@ "$@"; }

fa_print=@PRINTABLE@
fa_text=@TEXT@
# The names JSON.parse's object and process.env inherit: agent.ts would find them where this
# script finds nothing.
fa_inherited=' constructor hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf __defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__ __proto__ '

@LIB@

fa_read_stdin || fa_node "$@"
case $fa_prompt in *[!"$fa_text"]*) fa_node "$@" ;; esac

# fa_writable PATH: whether writeFileSync(PATH) surely succeeds: a plain file it may write, or
# none in a folder it may write in.
fa_writable() {
  if [ -e "$1" ] || [ -h "$1" ]; then
    [ -f "$1" ] && [ -w "$1" ]
    return
  fi
  case $1 in */*) fa_d=${1%/*} ;; *) fa_d=. ;; esac
  [ -n "$fa_d" ] || fa_d=/
  [ -d "$fa_d" ] && [ -w "$fa_d" ] && [ -x "$fa_d" ]
}

# The log lines, in fa_log: "KEY VISIBLE to …" when E2E_KEY_ENV names a variable this process
# can see (an upper-case name: process.env has no inherited one of those).
[ -z "$E2E_LOG" ] || { true >>"$E2E_LOG"; } 2>/dev/null || fa_node "$@"
fa_log=
if [ "$E2E_KEY_ENV" ]; then
  case $E2E_KEY_ENV in [!ABCDEFGHIJKLMNOPQRSTUVWXYZ_]* | *[!ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_]*) fa_node "$@" ;; esac
  eval "fa_set=\${$E2E_KEY_ENV+set}"
  if [ "$fa_set" ]; then
    case ${SWITCHYARD_TASK-the host} in *[!"$fa_print"]*) fa_node "$@" ;; esac
    fa_log="KEY VISIBLE to ${SWITCHYARD_TASK-the host}
"
  fi
fi

case $fa_prompt in
*[Ee][Xx][Aa][Cc][Tt][Ll][Yy]" "[Oo][Nn][Ee]" "[Ll][Aa][Bb][Ee][Ll]*)
  # A host question. Its task and key: the first /task ([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?\)/.
  fa_rest=$fa_prompt fa_task=
  while [ -z "$fa_task" ]; do
    case $fa_rest in *"task "*) fa_rest=${fa_rest#*"task "} ;; *) fa_node "$@" ;; esac
    fa_id=${fa_rest%%[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_]*}
    case $fa_id in [ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_]*) ;; *) continue ;; esac
    fa_after=${fa_rest#"$fa_id"}
    case $fa_after in
    ")"*) fa_task=$fa_id fa_key= ;;
    "["*"]"*)
      fa_key=${fa_after#?}
      fa_key=${fa_key%%]*}
      fa_after=${fa_after#*]}
      case $fa_after in ")"*) fa_task=$fa_id ;; esac
      ;;
    esac
  done
  case $fa_inherited in *" $fa_task "* | *" $fa_key "*) fa_node "$@" ;; esac
  # The first label: the first line "- label" from the first "## Labels" on (not that line).
  case $fa_prompt in *"## Labels"*) ;; *) fa_node "$@" ;; esac
  fa_label='?' fa_first=1 fa_labels=${fa_prompt#*"## Labels"}
  while IFS= read -r fa_line; do
    if [ "$fa_first" ]; then
      fa_first=
      continue
    fi
    case $fa_line in "- "[ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_]*) ;; *) continue ;; esac
    fa_line=${fa_line#??}
    fa_label=${fa_line%%[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_]*}
    break
  done <<EOF
$fa_labels
EOF
  # The scripted answer, E2E_HOST's {TASK: {KEY: LABEL}}: read here if it is JSON.stringify's
  # output of names made of [A-Za-z0-9_.-] (a later name wins, as in JSON.parse).
  if [ "$E2E_HOST" ] && { [ -e "$E2E_HOST" ] || [ -h "$E2E_HOST" ]; }; then
    [ -f "$E2E_HOST" ] && [ -r "$E2E_HOST" ] || fa_node "$@"
    fa_s=$(cat "$E2E_HOST"; echo .)
    fa_s=${fa_s%.}
    fa_name='*[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-]*'
    case $fa_s in "{"*) fa_s=${fa_s#?} ;; *) fa_node "$@" ;; esac
    fa_answer= fa_answered=
    [ "$fa_s" = "}" ] && fa_s=
    while [ "$fa_s" ]; do
      case $fa_s in '"'*) fa_s=${fa_s#?} ;; *) fa_node "$@" ;; esac
      fa_t=${fa_s%%\"*}
      case $fa_t in $fa_name) fa_node "$@" ;; esac
      fa_s=${fa_s#"$fa_t"}
      case $fa_s in '":{'*) fa_s=${fa_s#???} ;; *) fa_node "$@" ;; esac
      fa_v= fa_found=
      case $fa_s in "}"*) fa_s=${fa_s#?} ;; *)
        while :; do
          case $fa_s in '"'*) fa_s=${fa_s#?} ;; *) fa_node "$@" ;; esac
          fa_k=${fa_s%%\"*}
          case $fa_k in $fa_name) fa_node "$@" ;; esac
          fa_s=${fa_s#"$fa_k"}
          case $fa_s in '":"'*) fa_s=${fa_s#???} ;; *) fa_node "$@" ;; esac
          fa_l=${fa_s%%\"*}
          case $fa_l in $fa_name) fa_node "$@" ;; esac
          fa_s=${fa_s#"$fa_l"}
          case $fa_s in '"'*) fa_s=${fa_s#?} ;; *) fa_node "$@" ;; esac
          [ "$fa_k" = "$fa_key" ] && fa_v=$fa_l fa_found=1
          case $fa_s in ,*) fa_s=${fa_s#?} ;; "}"*)
            fa_s=${fa_s#?}
            break
            ;;
          *) fa_node "$@" ;; esac
        done
        ;;
      esac
      [ "$fa_t" = "$fa_task" ] && fa_answer=$fa_v fa_answered=$fa_found
      case $fa_s in ,*) fa_s=${fa_s#?} ;; "}") fa_s= ;; *) fa_node "$@" ;; esac
    done
    [ -z "$fa_answered" ] || fa_label=$fa_answer
  fi
  fa_log="${fa_log}host $fa_task[$fa_key]
"
  [ -z "$E2E_LOG" ] || printf '%s' "$fa_log" >>"$E2E_LOG"
  printf '%s\n' "$fa_label"
  ;;
*)
  # An agent turn: RESULT.json with a verdict and two lines of evidence, {} as its output.
  for fa_v in "${SWITCHYARD_TASK-undefined}" "${SWITCHYARD_KEY-}" "${SWITCHYARD_EFFORT-undefined}"; do
    case $fa_v in *[!"$fa_print"]*) fa_node "$@" ;; esac
  done
  [ "$SWITCHYARD_OUTPUT" ] && fa_writable "$SWITCHYARD_OUTPUT" && fa_writable RESULT.json || fa_node "$@"
  fa_ticket=
  if [ "${SWITCHYARD_KEY+set}" ]; then
    fa_json "$SWITCHYARD_KEY"
    fa_ticket="\"ticket\":$fa_j,"
  fi
  fa_log="${fa_log}turn ${SWITCHYARD_TASK-undefined}[${SWITCHYARD_KEY-}] ${SWITCHYARD_EFFORT-undefined}
"
  [ -z "$E2E_LOG" ] || printf '%s' "$fa_log" >>"$E2E_LOG"
  printf '{%s"verdict":"affected","evidence":["calls the vulnerable path","reproduced"]}' "$fa_ticket" >RESULT.json
  printf '{}' >"$SWITCHYARD_OUTPUT"
  ;;
esac
