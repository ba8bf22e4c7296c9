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
    optionDescriptors: [
      select("reasoningEffort", "Reasoning", ["low", "medium", "high", "xhigh"], "medium"),
      fastMode,
    ],
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
      {
        ...select("effort", "Reasoning", ["low", "medium", "high", "xhigh", "max"], "high"),
        promptInjectedValues: [],
      },
      fastMode,
      select("contextWindow", "Context Window", ["200k", "1m"], "1m"),
    ],
  },
}));

/** Update commands as the capture lists them (fixture 62); null where the CLI has none. */
const UPDATE_COMMANDS: Record<string, string | null> = {
  codex: "npm install -g @openai/codex@latest",
  claudeAgent: "npm install -g @anthropic-ai/claude-code@latest",
  opencode: "npm install -g opencode-ai@latest",
  grok: null,
};

function provider(
  instanceId: string,
  displayName: string,
  checkedAt: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const updateCommand = UPDATE_COMMANDS[instanceId] ?? null;
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
    versionAdvisory: {
      status: "unknown",
      currentVersion: null,
      latestVersion: null,
      updateCommand,
      canUpdate: updateCommand !== null,
      checkedAt,
      message: null,
    },
    models: [],
    ...fields,
  };
}

/** A provider whose CLI is missing, exactly as the capture's host reported them (fixture 62). */
function notInstalled(
  instanceId: string,
  displayName: string,
  cli: string,
  checkedAt: string,
  extra: Record<string, unknown>,
) {
  return provider(instanceId, displayName, checkedAt, {
    installed: false,
    version: null,
    status: "error",
    auth: { status: "unknown" },
    message: `${displayName} CLI (\`${cli}\`) is not installed or not on PATH.`,
    ...extra,
  });
}

/**
 * A fresh copy on every call: the model and descriptor objects above are shared module state, and a
 * caller (a test, a profile) that edits the answer must not change what the next caller is served.
 */
export function providers(checkedAt: string): Record<string, unknown>[] {
  return structuredClone(providerList(checkedAt));
}

function providerList(checkedAt: string): Record<string, unknown>[] {
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
      versionAdvisory: undefined,
    }),
    notInstalled("grok", "Grok", "grok", checkedAt, {
      showInteractionModeToggle: false,
      requiresNewThreadForModelChange: true,
      models: [
        { slug: "grok-build", name: "Grok Build", isCustom: false, capabilities: { optionDescriptors: [] } },
      ],
    }),
    notInstalled("opencode", "OpenCode", "opencode", checkedAt, { showInteractionModeToggle: false }),
  ];
}

type Identifier = { type: "identifier"; name: string };
type When = Identifier | { type: "not"; node: Identifier };
const focus = (name: string): Identifier => ({ type: "identifier", name });
const notFocus = (name: string): When => ({ type: "not", node: focus(name) });

/** A representative part of the captured default keybindings (fixture 62 lists 45). */
const KEYBINDINGS = (<[string, string, string, When | undefined][]>[
  ["sidebar.toggle", "b", "", undefined],
  ["terminal.toggle", "j", "", undefined],
  ["rightPanel.toggle", "b", "alt", undefined],
  ["terminal.split", "d", "", focus("terminalFocus")],
  ["terminal.splitVertical", "d", "shift", focus("terminalFocus")],
  ["diff.toggle", "d", "", notFocus("terminalFocus")],
  ["commandPalette.toggle", "k", "", notFocus("terminalFocus")],
  ["themeEditor.toggle", "t", "shift+alt", undefined],
  ["chat.new", "n", "", notFocus("terminalFocus")],
  ["chat.newLocal", "n", "shift", notFocus("terminalFocus")],
  ["thread.previous", "[", "shift", undefined],
  ["thread.next", "]", "shift", undefined],
  ["modelPicker.jump.1", "1", "", focus("modelPickerOpen")],
]).map(([command, key, modifiers, when]) => ({
  command,
  shortcut: {
    key,
    metaKey: false,
    ctrlKey: false,
    shiftKey: modifiers.includes("shift"),
    altKey: modifiers.includes("alt"),
    modKey: true,
  },
  ...(when ? { whenAst: when } : {}),
}));

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
    keybindings: structuredClone(KEYBINDINGS),
    issues: [],
    providers: providers(inputs.startedAt),
    availableEditors: [],
    observability: {
      logsDirectoryPath: `${inputs.homeDir}/.t3/userdata/logs`,
      localTracingEnabled: true,
      otlpTracesEnabled: false,
      otlpMetricsEnabled: false,
    },
    // The captured settings shape (fixture 62), with the sim's provider instances.
    settings: {
      enableAssistantStreaming: false,
      enableProviderUpdateChecks: true,
      backgroundActivity: { schemaVersion: 1, profile: "balanced", overrides: {} },
      automaticGitFetchInterval: 30_000,
      providerHealthRefreshInterval: 300_000,
      backgroundActivityProfile: "balanced",
      defaultThreadEnvMode: "local",
      newWorktreesStartFromOrigin: true,
      addProjectBaseDirectory: "",
      textGenerationModelSelection: {
        instanceId: "codex",
        model: "gpt-5.6-luna",
        options: [{ id: "reasoningEffort", value: "low" }],
      },
      sourceControlWritingStyle: {
        mode: "repo_conventions",
        customInstructions: "",
        followChangeRequestTemplates: true,
      },
      sourceControlWriterModelSelection: null,
      providers: {
        codex: {
          enabled: true,
          binaryPath: "codex",
          homePath: "",
          shadowHomePath: "",
          launchArgs: "",
          customModels: [],
        },
        claudeAgent: { enabled: true, binaryPath: "claude", homePath: "", customModels: [], launchArgs: "" },
        cursor: { enabled: false, customModels: [] },
        grok: { enabled: true, binaryPath: "grok", customModels: [] },
        opencode: {
          enabled: true,
          binaryPath: "opencode",
          serverUrl: "",
          serverPassword: "",
          customModels: [],
        },
      },
      providerInstances: {},
      observability: { otlpTracesUrl: "", otlpMetricsUrl: "" },
    },
    shellResumeCompletionMarker: true,
    threadResumeCompletionMarker: true,
    threadSnapshotPagination: true,
  };
}
