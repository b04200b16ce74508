// An agent runner from the machine config (D-40): `[agents.NAME] command = [...]`.
export interface AgentRunnerConfig {
  name: string;
  /** argv; run in the instance workspace with the rendered prompt on stdin. */
  command: string[];
  /** Extra environment for the runner (values, not secrets from the config). */
  env: Record<string, string>;
}
