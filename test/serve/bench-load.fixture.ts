// Run by bench-load.test.ts under tsx, loading the suite the way bench/run.ts does: prints the
// suite's name once every module it pulls in (the whole server, the harness, every tool) resolved.
const { suite } = (await import(new URL("../../bench/suites/serve.ts", import.meta.url).href)) as {
  suite: { name: string };
};
process.stdout.write(`${suite.name}\n`);
