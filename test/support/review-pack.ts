// The playbook the review queue's end-to-end tests run: `prepare` reads the elements from the
// pack's members.json, the route `gate` asks one yes/no question of type `triage` per element (the
// machine config sends it to review or to a model), and `fix` appends the key of each element
// answered yes to `fixLog`, so a test sees exactly which elements the answers let through.

/** The playbook's text; `question` names the route's question. */
export function reviewPlaybook(fixLog: string, question = "exploitable"): string {
  return `
playbook(description = "review queue", concurrency = 4)

prepare = command(name = "prepare", run = """cp $SWITCHYARD_PACK/members.json $SWITCHYARD_OUTPUT""", emits = {"members": "list"})

gate = route(
    name = "gate", depends_on = [prepare], over = prepare.members, max_fanout = 1000,
    questions = {"${question}": noul(ask = "Is it exploitable?", type = "triage", drop = ["no", "uncertain"])},
)

fix = command(name = "fix", depends_on = [gate], over = prepare.members, max_fanout = 1000, when = gate.${question}, answers = "yes",
    run = """echo "$SWITCHYARD_KEY" >> ${fixLog}""")
`;
}
