import { createInterface, type Interface } from "node:readline";
import { visibleControls } from "../core/text.js";

/** What the reader says when Ctrl-C clears a half-typed line. */
export const CLEARED_NOTICE = "(line cleared; Ctrl-C on an empty line, or Ctrl-D, exits)";

export interface LineReaderOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A terminal the user types on (line editing, Ctrl-C as a key), not piped lines. */
  terminal: boolean;
  /** Ctrl-C: true when the caller took it (a running turn aborts); else the reader handles it. */
  onInterrupt(): boolean;
  /** Ctrl-C on an empty line, with nothing running. */
  onExit(): void;
}

/**
 * Lines from the user, one at a time, whether typed or piped (piped lines are never dropped, and
 * are echoed after the prompt). At a prompt, Ctrl-C clears a half-typed line and says how to
 * leave; on an empty line it exits, as Ctrl-D (end of input) does.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private closed = false;
  private readonly rl: Interface;

  constructor(private readonly opts: LineReaderOptions) {
    this.rl = createInterface({ input: opts.input, output: opts.output, terminal: opts.terminal });
    this.rl.on("line", (line) => {
      if (this.waiter) {
        if (!opts.terminal) this.write(`${line}\n`);
        const w = this.waiter;
        this.waiter = null;
        w(line);
      } else this.lines.push(line);
    });
    this.rl.on("close", () => {
      this.closed = true;
      this.waiter?.(null);
      this.waiter = null;
    });
    this.rl.on("SIGINT", () => this.interrupt());
  }

  /** The next line after printing `prompt`; null at end of input. */
  next(prompt: string): Promise<string | null> {
    this.prompt(prompt);
    const line = this.lines.shift();
    if (line !== undefined) {
      if (!this.opts.terminal) this.write(`${line}\n`);
      return Promise.resolve(line);
    }
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /**
   * Ctrl-C, typed (a key on a terminal) or as a signal: the caller's if it takes it, else clear a
   * half-typed line, else exit.
   */
  interrupt(): void {
    if (this.opts.onInterrupt()) return;
    if (!this.rl.line) {
      this.opts.onExit();
      return;
    }
    // To the end of the line, then delete to its start: readline redraws the emptied line itself.
    this.rl.write(null, { ctrl: true, name: "e" });
    this.rl.write(null, { ctrl: true, name: "u" });
    this.write(`\n${CLEARED_NOTICE}\n`);
    if (this.waiter) this.rl.prompt();
  }

  close(): void {
    this.rl.close();
  }

  private write(text: string): void {
    this.opts.output.write(visibleControls(text));
  }

  /**
   * On a terminal the prompt is readline's own, so that it redraws it when it redraws the line (a
   * cleared line, an edit); blank lines before it are printed first, as readline draws one line.
   */
  private prompt(prompt: string): void {
    if (!this.opts.terminal) {
      this.write(prompt);
      return;
    }
    const text = prompt.replace(/^\n+/, (blank) => {
      this.write(blank);
      return "";
    });
    this.rl.setPrompt(visibleControls(text));
    this.rl.prompt(true);
  }
}
