/**
 * `server.getConfig` and the environment descriptor. Shapes follow fixtures 01 and 62; unlike
 * that capture (no provider CLI installed), the sim's codex and claudeAgent instances are
 * installed and ready, with models and option descriptors the connector validates against.
 */

export const DESCRIPTOR_CAPABILITIES = {
  repositoryIdentity: true,
  connectionProbe: true,
  threadSettlement: true,
  threadSnooze: true,
  threadPinning: true,
  threadTitleRegeneration: true,
  threadVisitedTracking: true,
};

const select = (id: string, label: string, options: string[], defaultId: string) => ({
  id,
  label,
  type: "select",
  options: options.map((option) => ({
    id: option,
    label: option[0]?.toUpperCase() + option.slice(1),
    ...(option === defaultId ? { isDefault: true } : {}),
  })),
  currentValue: defaultId,
});

const fastMode = { id: "fastMode", label: "Fast Mode", type: "boolean" };

const codexModels = [
  { slug: "gpt-5.6-sol", name: "GPT-5.6 Sol", isDefault: true },
  { slug: "gpt-5.6-sol-mini", name: "GPT-5.6 Sol Mini" },
  { slug: "gpt-5.6-luna", name: "GPT-5.6 Luna" },
].map((model) => ({
  ...model,
  isCustom: false,
  capabilities: {
    optionDescriptors: [select("reasoningEffort", "Reasoning", ["low", "medium", "high", "xhigh"], "medium"), fastMode],
  },
}));

const claudeModels = [
  { slug: "claude-fable-5", name: "Claude Fable 5", isDefault: true },
  { slug: "claude-opus-5", name: "Claude Opus 5" },
].map((model) => ({
  ...model,
  isCustom: false,
  capabilities: {
    optionDescriptors: [
      { ...select("effort", "Reasoning", ["low", "medium", "high", "xhigh", "max"], "high"), promptInjectedValues: [] },
      fastMode,
      select("contextWindow", "Context Window", ["200k", "1m"], "1m"),
    ],
  },
}));

function provider(
  instanceId: string,
  displayName: string,
  checkedAt: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  return {
    instanceId,
    driver: instanceId,
    displayName,
    continuation: { groupKey: `${instanceId}:instance:${instanceId}` },
    showInteractionModeToggle: true,
    enabled: true,
    installed: true,
    version: "1.0.0-sim",
    status: "ready",
    auth: { status: "authenticated", type: "oauth", label: "Simulated account" },
    checkedAt,
    slashCommands: [],
    skills: [],
    models: [],
    ...fields,
  };
}

export function providers(checkedAt: string): Record<string, unknown>[] {
  return [
    provider("claudeAgent", "Claude", checkedAt, { models: claudeModels }),
    provider("codex", "Codex", checkedAt, { models: codexModels }),
    provider("cursor", "Cursor", checkedAt, {
      showInteractionModeToggle: true,
      enabled: false,
      installed: false,
      version: null,
      status: "disabled",
      auth: { status: "unknown" },
      message: "Cursor is disabled in T3 Code settings.",
    }),
  ];
}

const KEYBINDINGS = [
  { command: "sidebar.toggle", shortcut: { key: "b", metaKey: false, ctrlKey: false, shiftKey: false, altKey: false, modKey: true } },
  { command: "chat.new", shortcut: { key: "n", metaKey: false, ctrlKey: false, shiftKey: false, altKey: false, modKey: true } },
  { command: "commandPalette.toggle", shortcut: { key: "k", metaKey: false, ctrlKey: false, shiftKey: false, altKey: false, modKey: true } },
];

export interface ConfigInputs {
  descriptor: Record<string, unknown>;
  startedAt: string;
  homeDir: string;
  cwd: string;
}

export function serverConfig(inputs: ConfigInputs): Record<string, unknown> {
  return {
    environment: inputs.descriptor,
    auth: {
      policy: "remote-reachable",
      bootstrapMethods: ["one-time-token"],
      sessionMethods: ["browser-session-cookie", "bearer-access-token", "dpop-access-token"],
      sessionCookieName: "t3_session_sim",
    },
    cwd: inputs.cwd,
    keybindingsConfigPath: `${inputs.homeDir}/.t3/userdata/keybindings.json`,
    keybindings: KEYBINDINGS,
    issues: [],
    providers: providers(inputs.startedAt),
    availableEditors: [],
    observability: {
      logsDirectoryPath: `${inputs.homeDir}/.t3/userdata/logs`,
      localTracingEnabled: false,
      otlpTracesEnabled: false,
      otlpMetricsEnabled: false,
    },
    settings: {
      enableAssistantStreaming: true,
      enableProviderUpdateChecks: false,
      defaultThreadEnvMode: "local",
      newWorktreesStartFromOrigin: true,
      addProjectBaseDirectory: "",
      textGenerationModelSelection: { instanceId: "codex", model: "gpt-5.6-luna", options: [{ id: "reasoningEffort", value: "low" }] },
      providers: {
        codex: { enabled: true, binaryPath: "codex", customModels: [] },
        claudeAgent: { enabled: true, binaryPath: "claude", customModels: [] },
        cursor: { enabled: false, customModels: [] },
      },
      providerInstances: {},
    },
    shellResumeCompletionMarker: true,
    threadResumeCompletionMarker: true,
    threadSnapshotPagination: true,
  };
}
