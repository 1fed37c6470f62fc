// @mastra/core's workspace skills behind the suite's JSON-lines protocol (docs/jsonlines-protocol.md).
//
// A Workspace over the scenario's skills directory gives an Agent its skill tools (`skill`,
// `skill_read`, `skill_search`) and the catalogue in its system prompt. Every operation is a
// real `agent.generate` whose model is scripted here (no provider, no network): it calls the
// tool it is told to, once, and records what it was offered, the system prompt and the result.
// Problems are what Mastra writes with console.warn and console.error, as a host's log has them.
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Workspace } from '@mastra/core/workspace';
import { z } from 'zod';

const VERSION = createRequire(import.meta.url)('@mastra/core/package.json').version;
const PROMPT = 'Use the skills.';
const UNSUPPORTED = {
  mcp: "a skill's frontmatter declares no MCP server Mastra would start",
  'mcp-http': "a skill's frontmatter declares no MCP server Mastra would connect to",
  lifecycle: 'the workspace starts no process for skills: nothing to enter',
  'child-session': 'no agent factory: the host builds each Agent with its workspace',
  'standalone-agent': 'no agent factory: the host builds each Agent with its workspace',
  'remote-skills': 'skills come from workspace paths or a versioned store, not an MCP server',
  'python-tools': "a skill's `tools:` frontmatter is not read; tools are the agent's",
  'allowed-tools': '`allowed-tools` is kept as metadata; it filters no tool',
  arguments: 'the skill tool takes a skill name only, no arguments',
  'skill-uri': 'skills are named or located by path; there are no skill:// URIs',
  'inline-references': 'the skill tool lists references by path; skill_read reads each',
  registry: 'no extension registry',
  'listing-source': 'the catalogue shows name, description, location and a source type only',
  'error-kinds': 'a refused call is an error result with text, no error kind',
  'size-limits': 'a SKILL.md is read whole whatever its size: no size limit',
  'duplicate-keys': 'gray-matter (js-yaml) refuses a key written twice',
  'lenient-loading': "a name differing from its folder is refused, as the format says, and js-yaml refuses an unquoted value holding ': '",
  'strict-utf8': 'SKILL.md is decoded leniently: a byte that is not UTF-8 becomes U+FFFD and the skill loads',
  'normalised-line-endings': "the body is handed over as written: CRLF line endings are kept",
};

// -- what the model is offered and returns: a scripted AI SDK model ---------------------------

function scriptedModel(call, run) {
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let step = 0;
  const next = (options) => {
    if (step === 0) {
      run.offered = (options.tools || []).map((tool) => tool.name);
      run.prompt = options.prompt
        .filter((message) => message.role === 'system')
        .map((message) => message.content)
        .join('\n');
    }
    for (const message of options.prompt) {
      if (message.role !== 'tool') continue;
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output || {};
        run.refused = String(output.type || '').startsWith('error');
        run.result = typeof output.value === 'string' ? output.value : JSON.stringify(output.value);
      }
    }
    return step++ === 0 ? call : null;
  };
  const parts = (planned) => {
    if (planned) return [{ type: 'tool-call', toolCallId: 'conformance-call', toolName: planned[0], input: JSON.stringify(planned[1]) }];
    return [{ type: 'text', text: 'Done.' }];
  };
  return {
    specificationVersion: 'v2',
    provider: 'skill-conformance',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate(options) {
      const planned = next(options);
      return { content: parts(planned), finishReason: planned ? 'tool-calls' : 'stop', usage, warnings: [] };
    },
    async doStream(options) {
      const planned = next(options);
      const chunks = [{ type: 'stream-start', warnings: [] }];
      if (planned) chunks.push(...parts(planned));
      else chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Done.' }, { type: 'text-end', id: 't' });
      chunks.push({ type: 'finish', finishReason: planned ? 'tool-calls' : 'stop', usage });
      return { stream: new ReadableStream({ start(controller) { for (const c of chunks) controller.enqueue(c); controller.close(); } }) };
    },
  };
}

// -- one scenario's system --------------------------------------------------------------------

const problems = [];
for (const level of ['warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    const line = format(...args).split(/\s+/).join(' ').trim();
    if (line && !problems.includes(line)) problems.push(line);
    original(...args); // stderr: the protocol keeps stdout to itself
  };
}
console.log = console.info = console.debug = (...args) => process.stderr.write(format(...args) + '\n');

class Unsupported extends Error {}
class Refused extends Error {}

let setup = null;
let workspace = null;

function childTools() {
  const tools = {};
  for (const child of setup.children) {
    if (child.kind !== 'tools') throw new Unsupported('the skill system takes no MCP server as a child');
    for (const name of child.tools) {
      tools[name] = createTool({ id: name, description: `Return ${child.label}:${name}.`, inputSchema: z.object({}), execute: async () => `${child.label}:${name}` });
    }
  }
  return tools;
}

async function run(call = null) {
  const record = { offered: null, prompt: null, result: null, refused: false };
  const agent = new Agent({ name: 'conformance', instructions: PROMPT, model: scriptedModel(call, record), workspace, tools: childTools() });
  await agent.generate(PROMPT, { maxSteps: 3 });
  return record;
}

async function called(name, args) {
  const record = await run([name, args]);
  if (record.refused) throw new Refused(record.result);
  return record.result;
}

async function start() {
  workspace = new Workspace({ skills: [setup.skills_dir] });
  await workspace.init();
}

const CATALOGUE = /<skill>\s*<name>([\s\S]*?)<\/name>\s*<description>([\s\S]*?)<\/description>/g;
const unescape = (text) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

const OPS = {
  hello: () => ({ name: 'mastra', version: VERSION, unsupported: UNSUPPORTED, protocol: 1 }),
  open: (args) => { setup = args.setup; workspace = null; problems.length = 0; return null; },
  start: async () => { await start(); return null; },
  problems: () => [...problems],
  tool_names: async () => (await run()).offered || [],
  run_tool: async (args) => {
    const record = await run([args.name, args.arguments || {}]);
    return { offered: record.offered || [], result: record.result };
  },
  load_skill: async (args) => {
    if (String(args.skill).startsWith('skill://')) throw new Unsupported(UNSUPPORTED['skill-uri']);
    if (args.arguments !== null && args.arguments !== undefined) throw new Unsupported(UNSUPPORTED.arguments);
    return called('skill', { name: args.skill });
  },
  list_skills: async () => {
    const prompt = (await run()).prompt || '';
    return [...prompt.matchAll(CATALOGUE)].map((m) => ({ name: unescape(m[1]), description: unescape(m[2]), source: 'local', uri: null }));
  },
  read_skill_file: async (args) => called('skill_read', { skillName: args.skill, path: args.path }),
  rebuild: async () => { await start(); return null; },  // a new workspace over the same paths
  close: () => { workspace = null; return null; },
};

// -- the protocol -----------------------------------------------------------------------------

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  let request;
  try { request = JSON.parse(line); } catch { continue; }
  const op = OPS[request.op];
  try {
    if (!op) throw new Unsupported(`Mastra's workspace skills have no equivalent of ${request.op}`);
    send({ id: request.id, ok: (await op(request.args || {})) ?? null });
  } catch (error) {
    const kind = error instanceof Unsupported ? 'unsupported' : error instanceof Refused ? 'unclassified' : 'crash';
    send({ id: request.id, error: { kind, message: String(error && error.message ? error.message : error) } });
  }
}
