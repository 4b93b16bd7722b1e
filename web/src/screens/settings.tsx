import { api, type Settings } from "../api";
import { type MessageKey, useI18n } from "../i18n";
import { useAsync } from "../use-async";

const KEY_LABEL: Record<Settings["models"]["providers"][number]["key"], MessageKey> = {
  set: "settings.keySet",
  missing: "settings.keyMissing",
  not_needed: "settings.keyNotNeeded",
};

function KeyBadge({ name, state }: { name?: string | null; state: keyof typeof KEY_LABEL }) {
  const { t } = useI18n();
  return (
    <span class={`badge key-${state}`} data-testid="key-state" data-state={state}>
      {name ? <code class="small">{name}</code> : null} {t(KEY_LABEL[state])}
    </span>
  );
}

/**
 * What the project's agents run on, read from `.nbook/config.json` (and the project's override) on
 * every visit: providers and whether each key variable is set (the server never sends a key), the
 * default and per-profile models, the embedding model and web search. Changes are made in the file
 * or with `nbook models add`; a running server picks them up at the next run.
 */
export function SettingsScreen({ project }: { project: string }) {
  const { t } = useI18n();
  const s = useAsync(() => api.settings(project), [project]);
  if (!s.data) {
    return (
      <section class="screen" data-testid="settings">
        <h2>{t("settings.title")}</h2>
        {s.error ? (
          <p class="error" data-testid="settings-error">
            {s.error.message}
          </p>
        ) : (
          <p class="muted">{t("common.loading")}</p>
        )}
        {s.error && (
          <button type="button" onClick={s.reload}>
            {t("common.retry")}
          </button>
        )}
      </section>
    );
  }
  const { models, embedding, webSearch } = s.data;
  return (
    <section class="screen" data-testid="settings">
      <div class="row">
        <h2 class="grow">{t("settings.title")}</h2>
        <button type="button" onClick={s.reload} data-testid="settings-reload">
          {t("settings.reload")}
        </button>
      </div>
      <p class="muted">{t("settings.howToChange")}</p>

      <h2>{t("settings.providers")}</h2>
      {models.providers.length === 0 ? (
        <p class="muted" data-testid="no-providers">
          {t("settings.noProviders")}
        </p>
      ) : (
        <table data-testid="providers">
          <thead>
            <tr>
              <th scope="col">{t("settings.provider")}</th>
              <th scope="col">{t("settings.kind")}</th>
              <th scope="col">{t("settings.address")}</th>
              <th scope="col">{t("settings.key")}</th>
            </tr>
          </thead>
          <tbody>
            {models.providers.map((p) => (
              <tr key={p.id} data-testid="provider" data-id={p.id}>
                <th scope="row">{p.id}</th>
                <td>{p.kind}</td>
                <td>
                  <code class="small">{String(p.baseURL ?? p.script ?? t("settings.defaultAddress"))}</code>
                </td>
                <td>
                  <KeyBadge name={p.apiKeyEnv} state={p.key} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>{t("settings.models")}</h2>
      <p data-testid="default-model">
        {t("settings.defaultModel")}: <code>{models.defaultModel ?? t("settings.none")}</code>
      </p>
      <table data-testid="profile-models">
        <tbody>
          {models.profiles.map((p) => (
            <tr key={p.profile}>
              <th scope="row">{p.profile}</th>
              <td>
                <code>{p.ref ?? t("settings.none")}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {models.problems.length > 0 && (
        <ul class="error" data-testid="settings-problems">
          {models.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}

      <h2>{t("settings.embedding")}</h2>
      <p data-testid="embedding">
        {!embedding
          ? t("settings.embeddingNone")
          : embedding.kind === "local"
            ? t("settings.embeddingLocal", { dimensions: embedding.dimensions })
            : t("settings.embeddingApi", {
                model: `${embedding.provider ?? "?"}/${embedding.model ?? "?"}`,
                dimensions: embedding.dimensions,
              })}
      </p>

      <h2>{t("settings.webSearch")}</h2>
      <table data-testid="web-search">
        <tbody>
          {webSearch.providers.map((p) => (
            <tr key={p.name}>
              <th scope="row">{p.name}</th>
              <td>{p.enabled ? t("settings.enabled") : t("settings.disabled")}</td>
              <td>
                <code class="small">{p.url ?? t("settings.notSet")}</code>
              </td>
              <td>
                <KeyBadge name={p.apiKeyEnv} state={p.key} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
