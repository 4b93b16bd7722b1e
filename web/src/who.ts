// Who made a change or wrote a line, as the Changes screen and a file's blame name them.
import type { Blame } from "./api";
import { type MessageKey, useI18n } from "./i18n";

type Author = Blame["lines"][number]["author"];

const LABEL: Record<Exclude<Author["actor"], "agent">, MessageKey> = {
  user: "changes.you",
  outside: "changes.outside",
  import: "changes.import",
  revert: "changes.revertBy",
  unknown: "changes.unknown",
};

/** A label for an actor: you, outside edits, an import, a revert, or the agent's profile and session. */
export function useWho(): (a: Pick<Author, "actor" | "session" | "profile">) => string {
  const { t } = useI18n();
  return (a) => {
    if (a.actor !== "agent") {
      const who = t(LABEL[a.actor]);
      return a.session ? `${who} · #${a.session}` : who;
    }
    const profile = a.profile ?? "agent";
    return a.session
      ? t("changes.agent", { profile, session: a.session })
      : t("changes.agentNoSession", { profile });
  };
}
