// The tiny pack the library API's tests run: three keys; the route asks one noul question per key
// and drops "no" (and uncertain), so only the keys a provider says yes to reach the agent, whose
// runner is named "coder".

export const PACK = `
items = command(name = "items", run = """echo '{"keys": ["a", "b", "c"]}' > $SWITCHYARD_OUTPUT""", emits = {"keys": "list"})
gate = route(name = "gate", depends_on = [items], over = items.keys, max_fanout = 10, min_confidence = 0.8,
             questions = {"go": noul(ask = "Work on {{key}}?", drop = ["no", "uncertain"])})
work = agent(name = "work", depends_on = [items, gate], over = items.keys, max_fanout = 10, runner = "coder",
             when = gate.go, answers = "yes", prompt = "Do {{key}}", emits = {"text": "string"})
`;
