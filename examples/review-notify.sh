#!/bin/sh
# A review_notify command (docs/review.md): posts switchyard's review-queue summary to a Slack
# incoming webhook. Wire it in the machine config:
#
#   [decisions]
#   review_notify = ["./examples/review-notify.sh", "#triage"]
#
# switchyard runs it without a shell, with one JSON object on stdin:
#   {"event":"waiting"|"empty","run":"…","waiting":N,"questions":[{"task","key","question","model_label"?}]}
# The webhook URL comes from the environment (SLACK_WEBHOOK_URL), never from the config. Without
# it the message is printed on stderr instead, so the script can be tried by hand:
#   echo '{"event":"waiting","run":"r1","waiting":3,"questions":[]}' | ./examples/review-notify.sh '#triage'
set -eu
channel=${1:-}
text=$(node -e '
let s = "";
process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const j = JSON.parse(s);
  console.log(j.event === "waiting"
    ? `${j.waiting} question(s) wait for review in run ${j.run}: switchyard review ${j.run}`
    : `run ${j.run}: the review queue is empty`);
});')
if [ -z "${SLACK_WEBHOOK_URL:-}" ]; then
  echo "review-notify ${channel}: ${text}" >&2
  exit 0
fi
payload=$(CHANNEL="$channel" TEXT="$text" node -e 'console.log(JSON.stringify({ channel: process.env.CHANNEL, text: process.env.TEXT }))')
curl -sS -X POST -H 'Content-Type: application/json' --data "$payload" "$SLACK_WEBHOOK_URL" >/dev/null
