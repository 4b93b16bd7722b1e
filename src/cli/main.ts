import { Command, CommanderError, Help } from "commander";
import { EXIT, printJson } from "./output.js";

/** One top-level command: what the top-level help shows, and how to load its registration. */
export interface CommandEntry {
  name: string;
  /** The term the top-level help lists, e.g. "tool [options] [key]". */
  term: string;
  description: string;
  load(): Promise<(program: Command) => void>;
}

/**
 * Every `nbook` command, in help order. Only the command being run is imported, so `nbook --help`
 * loads none of them and `nbook tool read` never loads the AI SDK or the MCP server. The terms and
 * descriptions must match what each command registers (a test checks that they do).
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "init",
    term: "init <dir>",
    description: "Create a NeuroBook workspace (a folder of projects with a .nbook/ control area)",
    load: async () => (await import("./commands/init.js")).registerInit,
  },
  {
    name: "demo",
    term: "demo [options]",
    description:
      "Create a workspace with the sample novel and watch the leader agent plan a chapter and delegate its drafting to a writer agent (offline)",
    load: async () => (await import("./commands/demo.js")).registerDemo,
  },
  {
    name: "chat",
    term: "chat [options]",
    description: "Chat with an agent in the terminal (streams text, asks for approvals)",
    load: async () => (await import("./commands/chat.js")).registerChat,
  },
  {
    name: "run",
    term: "run [options] [message]",
    description:
      "Run an agent once on a message (a new session, or --session N); --session N alone continues it",
    load: async () => (await import("./commands/run.js")).registerRun,
  },
  {
    name: "approve",
    term: "approve [options] <sessionId> <approvalId>",
    description: "Approve (or --reject) a pending approval, or --answer a question, and continue the run",
    load: async () => (await import("./commands/approve.js")).registerApprove,
  },
  {
    name: "memory",
    term: "memory",
    description: "Subject memory: list subjects, show one, search its events or memories, rebuild the index",
    load: async () => (await import("./commands/memory.js")).registerMemory,
  },
  {
    name: "project",
    term: "project",
    description: "Create and list novel projects",
    load: async () => (await import("./commands/project.js")).registerProject,
  },
  {
    name: "import",
    term: "import [options] <source>",
    description:
      "Import a manuscript (DOCX, EPUB, Markdown, plain text, or a folder of Markdown files) as a new project, or --into an existing one",
    load: async () => (await import("./commands/import.js")).registerImport,
  },
  {
    name: "export",
    term: "export [options]",
    description:
      "Compile the project's book — title page, contents, chapters in the plot's order, front/back matter — as EPUB, DOCX, Markdown, HTML or PDF",
    load: async () => (await import("./commands/export.js")).registerExport,
  },
  {
    name: "tool",
    term: "tool [options] [key]",
    description: "Run one tool through the full dispatch (validation, allowlist, mode gate), or list tools",
    load: async () => (await import("./commands/tool.js")).registerTool,
  },
  {
    name: "profile",
    term: "profile",
    description: "List and inspect agent profiles",
    load: async () => (await import("./commands/profile.js")).registerProfile,
  },
  {
    name: "skills",
    term: "skills",
    description: "List the agent skills (built-in, workspace and project layers) and show one",
    load: async () => (await import("./commands/skills.js")).registerSkills,
  },
  {
    name: "plot",
    term: "plot",
    description:
      "Read the story structure, the writer brief, promises and decisions; manage phases; delete plot rows",
    load: async () => (await import("./commands/plot.js")).registerPlot,
  },
  {
    name: "search",
    term: "search [options] <query>",
    description:
      'Search the manuscript, lorebook and .agent/plan/ for words, a "phrase" or a prefix*: file, line, chapter and a snippet',
    load: async () => (await import("./commands/search.js")).registerSearch,
  },
  {
    name: "mcp",
    term: "mcp [options]",
    description: "Serve a project's tools and Markdown files to any MCP client (stdio, or --http)",
    load: async () => (await import("./commands/mcp.js")).registerMcp,
  },
  {
    name: "serve",
    term: "serve [options]",
    description: "Serve the web workbench and its HTTP API (agents run in this process)",
    load: async () => (await import("./commands/serve.js")).registerServe,
  },
  {
    name: "models",
    term: "models",
    description: "Model providers and models from .nbook/config.json",
    load: async () => (await import("./commands/models.js")).registerModels,
  },
  {
    name: "history",
    term: "history [options]",
    description:
      "Every recorded change to the project, newest first (who, which tool, what); show, blame, prune, push, repair",
    load: async () => (await import("./commands/history.js")).registerHistory,
  },
  {
    name: "revert",
    term: "revert [options] [ids...]",
    description:
      "Take back recorded changes (ids, a session's, a turn's, or those since a time): later edits to other lines survive; a conflict changes nothing",
    load: async () => (await import("./commands/revert.js")).registerRevert,
  },
  {
    name: "sessions",
    term: "sessions",
    description:
      "List, show, export, rewind, fork, rename, archive and delete agent sessions; what each model call was sent and cost",
    load: async () => (await import("./commands/sessions.js")).registerSessions,
  },
  {
    name: "jobs",
    term: "jobs",
    description: "List, show and cancel background jobs (bash and agent calls run in the background)",
    load: async () => (await import("./commands/jobs.js")).registerJobs,
  },
  {
    name: "sql",
    term: "sql [options] [statement]",
    description:
      "Run one SQL statement on the project's project.sqlite (execute_sql), or --describe the schema",
    load: async () => (await import("./commands/sql.js")).registerSql,
  },
  {
    name: "world",
    term: "world",
    description: "The World Engine: schema, subjects, state, history, slices, issues, scripts",
    load: async () => (await import("./commands/world.js")).registerWorld,
  },
  {
    name: "workflows",
    term: "workflows",
    description:
      "Workflows: list and show definitions (built-in, workspace and project layers); run, resume, answer, cancel and show runs",
    load: async () => (await import("./commands/workflows.js")).registerWorkflows,
  },
  {
    name: "research",
    term: "research",
    description:
      "Web-novel ranking snapshots and book details (novel_rankings, novel_book_detail), and the stored snapshot history",
    load: async () => (await import("./commands/research.js")).registerResearch,
  },
];

/** The command `argv` runs (or asks help for, as in `nbook help run`); undefined when it names none. */
export function commandNamed(argv: readonly string[]): string | undefined {
  // `nbook` itself takes no option with a value, so the first word that is not an option is the command.
  const words = argv.slice(2).filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}

/**
 * Build the `nbook` command tree for `argv`: the command it runs is fully registered (its own
 * options, subcommands and help); every other command is only a name and a description.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command("nbook")
    .description("NeuroBook: a local workspace where AI agents help you write a long novel.")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  const wanted = commandNamed(argv);
  const terms = new Map<string, string>();
  for (const entry of COMMANDS) {
    if (entry.name === wanted) (await entry.load())(program);
    else {
      program.command(entry.name).description(entry.description);
      terms.set(entry.name, entry.term);
    }
  }
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (cmd) => terms.get(cmd.name()) ?? help.subcommandTerm(cmd),
  });
  return program;
}

/** End quietly when the reader of stdout goes away (`nbook tool --list | head`), instead of a stack trace. */
function exitOnClosedStdout(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit();
  });
}

/** Run the CLI with process arguments. */
export async function main(argv = process.argv): Promise<void> {
  exitOnClosedStdout();
  try {
    await (await buildProgram(argv)).parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      // Commander has explained on stderr; a --json caller still gets its one object on stdout.
      if (e.exitCode !== 0 && argv.includes("--json")) {
        printJson({ ok: false, error: { code: "invalid_input", message: e.message } });
      }
      return;
    }
    throw e;
  }
}
