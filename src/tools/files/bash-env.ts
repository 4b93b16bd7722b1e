/** Variables a command inherits by name: locale, terminal and time zone; none can hold a secret. */
const INHERITED = /^(LANG|LANGUAGE|LC_[A-Z_]+|TERM|TZ)$/;

/** Where a command runs: what it finds on PATH, its home folder and the project folder as it sees them. */
export interface CommandPlace {
  path: string;
  home: string;
  projectRoot: string;
}

/**
 * A command's whole environment, built from an allowlist rather than from nbook's own (which holds
 * the providers' API keys and whatever else the user exported): what a command prints goes to the
 * model and into the session record.
 */
export function commandEnv(place: CommandPlace): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && INHERITED.test(name)) env[name] = value;
  }
  env.LANG ??= "C.UTF-8";
  env.TERM ??= "dumb";
  env.PATH = place.path;
  env.HOME = place.home;
  env.NBOOK_PROJECT_ROOT = place.projectRoot;
  return env;
}
