import { request } from "node:http";

/** What a paced upload ended with: the answer, and the error its connection ended with, if any. */
export interface UploadOutcome {
  status?: number;
  text: string;
  error?: string;
}

/**
 * Send `body` to 127.0.0.1 1 MiB at a time, 100 ms apart (a browser on a fast LAN, slower than
 * loopback), with or without a Content-Length, and wait for both the answer and the end of the
 * upload: a server that answers and stops reading shows as an error (EPIPE, ECONNRESET).
 */
export function pacedUpload(
  opts: { port: string | number; method: string; path: string; headers: Record<string, string> },
  body: Buffer,
  withLength: boolean,
): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    let error: string | undefined;
    let answer: { status?: number; text: string } | undefined;
    let sent = false;
    const settle = () => {
      if (error) resolve({ ...(answer ?? { text: "" }), error });
      else if (answer && sent) resolve(answer);
    };
    const req = request(
      {
        host: "127.0.0.1",
        port: opts.port,
        method: opts.method,
        path: opts.path,
        headers: { ...opts.headers, ...(withLength ? { "content-length": body.length } : {}) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => {
          answer = { status: res.statusCode, text };
          settle();
        });
      },
    );
    req.on("error", (e) => {
      error = (e as NodeJS.ErrnoException).code ?? e.message;
      settle();
    });
    const step = 1024 * 1024;
    const next = (at: number) => {
      if (error) return;
      if (at + step >= body.length) {
        req.end(body.subarray(at), () => {
          sent = true;
          settle();
        });
        return;
      }
      req.write(body.subarray(at, at + step));
      setTimeout(() => next(at + step), 100);
    };
    next(0);
  });
}
