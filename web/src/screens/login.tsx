import { useState } from "preact/hooks";
import { api } from "../api";
import { useI18n } from "../i18n";

/** Exchange the login token `nbook serve` printed for a session cookie. */
export function Login({ onDone }: { onDone: () => void }) {
  const { t } = useI18n();
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.login(token.trim());
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div class="center">
      <form class="card login" onSubmit={submit}>
        <h1>{t("appName")}</h1>
        <h2>{t("login.title")}</h2>
        <p class="muted">{t("login.hint")}</p>
        <label>
          {t("login.token")}
          <input
            type="password"
            autoComplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
            data-testid="login-token"
            // biome-ignore lint/a11y/noAutofocus: the only field of the page
            autoFocus
          />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={!token.trim()} data-testid="login-submit">
          {t("login.submit")}
        </button>
      </form>
    </div>
  );
}
