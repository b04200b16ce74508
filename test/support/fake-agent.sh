#!/bin/sh
# A fake @TOOL@, written from test/support/fake-agent.sh by test/support/fake-agent-sh.ts. It
# answers `--version` and a successful turn itself, printing byte for byte what the Node fake
# (test/support/fake-agent-cli.ts) prints for them, and hands every other call to the Node fake
# unchanged, its prompt included. Its variables are named fa_* so as to change none of the
# environment the Node fake, git and env see.

# Hands the call to the Node fake (fa_exec). Once this call has taken its number from
# FAKE_AGENT_COUNTER, the Node fake gets the mode that number gave instead of the counter, so as
# not to take another.
fa_counted=
fa_node() {
  if [ "$fa_counted" ]; then
    unset FAKE_AGENT_COUNTER
    FAKE_AGENT_MODE=$fa_mode
    export FAKE_AGENT_MODE
  fi
  fa_exec @NODE_FAKE@ "$@"
}

fa_print=@PRINTABLE@
fa_text=@TEXT@
fa_pathc=@PATH_CHARS@
fa_space=@SPACES@
fa_nl='
'
fa_cr=@CR@ fa_soh=@SOH@ fa_ls=@LS@ fa_ps=@PS@

@LIB@

# The Node fake reads `--version` before any setting.
if [ $# = 1 ] && [ "$1" = --version ]; then
  fa_v=${FAKE_AGENT_VERSION-@VERSION@}
  case $fa_v in *[!"$fa_print"]*) fa_node "$@" ;; esac
  printf '%s' @VERSION_BEFORE@ "$fa_v" @VERSION_AFTER@
  exit 0
fi

# A wait is the Node fake's to make.
[ -z "$FAKE_AGENT_SLEEP_MS" ] || fa_node "$@"
if [ "${FAKE_AGENT_REPLY+set}" ]; then
  case $FAKE_AGENT_REPLY in *[!"$fa_print"]*) fa_node "$@" ;; esac
fi

# fa_has WORD ARG...: whether WORD is one of the ARGs.
fa_has() {
  fa_w=$1
  shift
  for fa_a; do [ "$fa_a" = "$fa_w" ] && return 0; done
  return 1
}

# fa_value FLAG ARG...: sets fa_v to the ARG after the first FLAG; fails if there is none.
fa_value() {
  fa_w=$1
  shift
  while [ $# -gt 0 ]; do
    if [ "$1" = "$fa_w" ]; then
      [ $# -gt 1 ] || return 1
      fa_v=$2
      return 0
    fi
    shift
  done
  return 1
}

# fa_esc TEXT: sets fa_e1 to TEXT as it stands inside a JSON string, fa_e2 to fa_e1 as it stands
# inside a JSON string (JSON in JSON); fails as fa_json does.
fa_esc() {
  fa_json "$1" || return 1
  fa_e1=${fa_j#?}
  fa_e1=${fa_e1%?}
  fa_json "$fa_e1" || return 1
  fa_e2=${fa_j#?}
  fa_e2=${fa_e2%?}
}

# fa_sure PATH: whether the work on PATH surely succeeds, as the Node fake's would: a relative path
# of plain names (no ".", "..", empty name or link, not too long), each existing part a folder it
# may enter, the file absent or a plain file it may write, the first absent part in a folder it
# may write, and the folders it makes ones it may write in (the umask). A path that might fail
# is the Node fake's: its failure prints a stack trace.
fa_sure() {
  case $1 in /* | */ | *//* | . | .. | ./* | ../* | */. | */.. | */./* | */../*) return 1 ;; esac
  [ ${#1} -le 200 ] || return 1
  fa_rest=$1 fa_at=. fa_new=
  while :; do
    case $fa_rest in
      */*) fa_c=${fa_rest%%/*} fa_rest=${fa_rest#*/} ;;
      *) fa_c=$fa_rest fa_rest= ;;
    esac
    fa_next=$fa_at/$fa_c
    if [ -z "$fa_new" ] && { [ -e "$fa_next" ] || [ -h "$fa_next" ]; }; then
      [ ! -h "$fa_next" ] || return 1
      if [ "$fa_rest" ]; then
        [ -d "$fa_next" ] && [ -x "$fa_next" ] || return 1
      else
        [ -f "$fa_next" ] && [ -w "$fa_next" ] || return 1
      fi
    elif [ -z "$fa_new" ]; then
      [ -d "$fa_at" ] && [ -w "$fa_at" ] && [ -x "$fa_at" ] || return 1
      if [ "$fa_rest" ]; then
        case $(umask) in *[123567]??) return 1 ;; esac
      fi
      fa_new=1
    fi
    fa_at=$fa_next
    [ "$fa_rest" ] || return 0
  done
}

# What the Node fake checks in the argv before it reads the prompt.
@ARGV_CHECKS@

# The call's mode: FAKE_AGENT_MODE's, or the one FAKE_AGENT_RATE_LIMITS or FAKE_AGENT_MODES give
# the call's number, taken as the Node fake takes it: the first COUNTER.N this call can create.
fa_mode=${FAKE_AGENT_MODE-ok}
if [ "$FAKE_AGENT_COUNTER" ] && [ "$FAKE_AGENT_RATE_LIMITS$FAKE_AGENT_MODES" ]; then
  # Number(FAKE_AGENT_RATE_LIMITS) where the shell reads the same number.
  case $FAKE_AGENT_RATE_LIMITS in *[!0123456789]* | ??????????*) fa_node "$@" ;; esac
  fa_n=1
  set -C
  until { true >"$FAKE_AGENT_COUNTER.$fa_n"; } 2>/dev/null; do fa_n=$((fa_n + 1)); done
  set +C
  fa_counted=1
  if [ "$FAKE_AGENT_RATE_LIMITS" ]; then
    if [ "$fa_n" -le "$FAKE_AGENT_RATE_LIMITS" ]; then fa_mode=rate-limit; else fa_mode=ok; fi
  else
    # The Nth of the comma-separated modes, the last one from then on.
    fa_rest=$FAKE_AGENT_MODES fa_i=1
    while [ "$fa_i" -lt "$fa_n" ]; do
      case $fa_rest in *,*) fa_rest=${fa_rest#*,} ;; *) break ;; esac
      fa_i=$((fa_i + 1))
    done
    fa_mode=${fa_rest%%,*}
  fi
fi
# The modes this script answers as the Node fake does; a 429's delay that fa_json can write and
# String.replace takes as it stands (no `$`).
case $fa_mode in @MODES@) ;; *) fa_node "$@" ;; esac
if [ "$fa_mode" = rate-limit ]; then
  case ${FAKE_AGENT_RETRY_IN-2s} in *[!"$fa_print"]* | *'$'*) fa_node "$@" ;; esac
fi

# The prompt, in fa_prompt (a NUL byte, which a shell variable cannot hold, read as \001; a
# prompt with either is the Node fake's).
@READ_PROMPT@

# Line ends the Node fake's /^…$/m sees but `read` does not, a NUL; with a log, a byte that
# Buffer.byteLength might count otherwise than ${#fa_prompt}.
case $fa_prompt in *"$fa_soh"* | *"$fa_cr"* | *"$fa_ls"* | *"$fa_ps"*) fa_node "$@" ;; esac
if [ "$FAKE_AGENT_LOG" ]; then
  case $fa_prompt in *[!"$fa_text"]*) fa_node "$@" ;; esac
fi

# The work: the lines /^(EDIT|WRITE) (\S+)$/ matches, in fa_work. A line whose path has a space
# is not work; one whose path has any other character outside [A-Za-z0-9._/-] is the Node fake's.
fa_work= fa_paths=$fa_nl fa_odd=
case $fa_prompt in *"EDIT "* | *"WRITE "*)
  while IFS= read -r fa_line; do
    case $fa_line in "EDIT "* | "WRITE "*) ;; *) continue ;; esac
    fa_p=${fa_line#* }
    case $fa_p in "" | *["$fa_space"]*) continue ;; *[!"$fa_pathc"]*) fa_odd=1 ;; esac
    fa_work=$fa_work$fa_line$fa_nl fa_paths=$fa_paths$fa_p$fa_nl
  done <<EOF
$fa_prompt
EOF
  ;;
esac
# Each path sure to be written, and none a folder of another (written as a file by one line,
# made a folder by another).
while IFS= read -r fa_line; do
  [ "$fa_line" ] && [ -z "$fa_odd" ] || continue
  fa_p=${fa_line#* }
  case $fa_paths in *"$fa_nl$fa_p/"*) fa_odd=1 ;; esac
  fa_sure "$fa_p" || fa_odd=1
done <<EOF
$fa_work
EOF
[ -z "$fa_odd" ] || fa_node "$@"

# The log line, as JSON.stringify writes the Node fake's; the context is the SWITCHYARD_*
# variables in the order of the environment, which `env` prints as the Node fake would see it.
fa_log=
if [ "$FAKE_AGENT_LOG" ]; then
  { true >>"$FAKE_AGENT_LOG"; } 2>/dev/null || fa_node "$@"
  fa_argv=
  for fa_a; do
    fa_json "$fa_a" || fa_node "$@"
    fa_argv=$fa_argv${fa_argv:+,}$fa_j
  done
  fa_cwd=$(pwd -P) && fa_json "$fa_cwd" || fa_node "$@"
  fa_cwd=$fa_j
  if fa_head=$(git rev-parse HEAD 2>/dev/null </dev/null); then
    case $fa_head in "" | *[!0123456789abcdef]*) fa_node "$@" ;; esac
    fa_head="\"$fa_head\""
  else
    fa_head=null
  fi
  fa_key=
  if [ "${SWITCHYARD_KEY+set}" ]; then
    fa_json "$SWITCHYARD_KEY" || fa_node "$@"
    fa_key=",\"key\":$fa_j"
  fi
  fa_env=$(env) || fa_node "$@"
  fa_ctx= fa_seen=' '
  while IFS= read -r fa_line; do
    case $fa_line in SWITCHYARD_*=*) ;; *) continue ;; esac
    fa_n=${fa_line%%=*}
    # A name the shell cannot read, a name twice, or a line that is not the whole variable (a
    # value of several lines, or a line of another variable's value): the Node fake's.
    case $fa_n in *[!ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_]*)
      fa_odd=1
      break
      ;;
    esac
    case $fa_seen in *" $fa_n "*)
      fa_odd=1
      break
      ;;
    esac
    fa_seen="$fa_seen$fa_n "
    eval "fa_v=\${$fa_n-} fa_set=\${$fa_n+set}"
    if [ -z "$fa_set" ] || [ "$fa_n=$fa_v" != "$fa_line" ] || ! fa_json "$fa_v"; then
      fa_odd=1
      break
    fi
    fa_ctx="$fa_ctx${fa_ctx:+,}\"$fa_n\":$fa_j"
  done <<EOF
$fa_env
EOF
  [ -z "$fa_odd" ] || fa_node "$@"
  if [ "${GEMINI_CLI_TRUST_WORKSPACE+set}" ]; then
    fa_json "$GEMINI_CLI_TRUST_WORKSPACE" || fa_node "$@"
    fa_trust=$fa_j
  else
    fa_trust=null
  fi
  fa_log="{\"tool\":\"@TOOL@\",\"argv\":[$fa_argv],\"cwd\":$fa_cwd,\"head\":$fa_head$fa_key,\"context\":{$fa_ctx},\"prompt_length\":${#fa_prompt},\"trust\":$fa_trust}"
  # The Node fake appends its line in one write, which concurrent fakes cannot split; the shell's
  # printf writes up to its buffer's size at once.
  [ ${#fa_log} -lt 4000 ] || fa_node "$@"
fi

# From here on nothing is handed over: the log line, the work, the recorded answer.
[ -z "$fa_log" ] || printf '%s\n' "$fa_log" >>"$FAKE_AGENT_LOG"
fa_done=
while IFS= read -r fa_line; do
  [ "$fa_line" ] || continue
  fa_p=${fa_line#* }
  case $fa_p in */*) [ -d "${fa_p%/*}" ] || mkdir -p "${fa_p%/*}" ;; esac
  case $fa_line in
    E*) printf 'fixed by @TOOL@\n' >>"$fa_p" ;;
    *) printf 'written by @TOOL@\n' >"$fa_p" ;;
  esac
  fa_done=${fa_done:+$fa_done, }$fa_p
done <<EOF
$fa_work
EOF
if [ "${FAKE_AGENT_REPLY+set}" ]; then
  fa_reply=$FAKE_AGENT_REPLY
elif [ "$fa_done" ]; then
  fa_reply="Edited $fa_done."
else
  fa_reply="Nothing to edit."
fi
fa_esc "$fa_reply"
fa_reply1=$fa_e1 fa_reply2=$fa_e2
if [ "$fa_mode" = rate-limit ]; then
  fa_esc "${FAKE_AGENT_RETRY_IN-2s}"
  fa_retry1=$fa_e1 fa_retry2=$fa_e2
fi
@ANSWER@
