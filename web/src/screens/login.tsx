import { useState } from "preact/hooks";
import { api } from "../api";
import { useI18n } from "../i18n";

/**
 * Sign in: with the one-time token `nbook serve` printed (the server exchanges it at
 * `/login?token=` for a session cookie), or with the password when one is configured.
 */
export function Login({ onDone }: { onDone: () => void }) {
  const { t } = useI18n();
  const [token, setToken] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  // The same exchange as opening the printed link, without leaving the page: a good token answers
  // with the cookie and a redirect, a wrong or spent one with an error shown here.
  const withToken = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const pasted = token.trim();
    const fromLink = /[?&]token=([^&#\s]+)/.exec(pasted);
    const value = fromLink ? decodeURIComponent(fromLink[1]!) : pasted;
    const res = await fetch(`/login?token=${encodeURIComponent(value)}`, {
      redirect: "manual",
      credentials: "same-origin",
    });
    if (res.type === "opaqueredirect" || res.ok) return onDone();
    setError(res.status === 401 ? t("login.badToken") : `${res.status} ${res.statusText}`);
  };
  const withPassword = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.loginPassword(password);
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div class="center">
      <div class="card login">
        <h1>{t("appName")}</h1>
        <form onSubmit={withToken}>
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
              // biome-ignore lint/a11y/noAutofocus: the sign-in page's first field
              autoFocus
            />
          </label>
          <button type="submit" class="primary" disabled={!token.trim()} data-testid="login-submit">
            {t("login.submit")}
          </button>
        </form>
        <form onSubmit={withPassword}>
          <label>
            {t("login.password")}
            <input
              type="password"
              autoComplete="current-password"
              value={password}
              onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit" disabled={!password}>
            {t("login.submit")}
          </button>
        </form>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
