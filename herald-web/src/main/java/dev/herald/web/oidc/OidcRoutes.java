package dev.herald.web.oidc;

import dev.herald.core.account.Account;
import dev.herald.web.Routes;
import dev.herald.web.access.WebAccess;
import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sign-in with the company's OpenID Connect provider: the authorization code flow with PKCE (S256), state and nonce.
 *
 * <p>{@code GET /auth/oidc/start} makes a state, a nonce and a PKCE verifier, keeps them in a short-lived cookie signed
 * with the installation's session secret ({@code herald_oidc}: HttpOnly, SameSite=Lax so it comes back with the
 * provider's redirect, path {@code /auth/oidc}, {@link #FLOW_LIFETIME}), and sends the browser to the provider.
 * {@code GET /auth/oidc/callback} takes the provider's answer: the state must match the cookie's and be unused (each
 * is used once: a replayed callback is refused), the code is exchanged with the verifier, the ID token is checked
 * ({@link IdTokenVerifier}: signature, issuer, audience, times, this flow's nonce), the person is let in or refused
 * ({@link OidcAccounts}), and a normal Herald session starts: the same session cookie as a password sign-in. Every
 * refusal is a small page that says what happened and links to a new sign-in. Because the state travels in a signed
 * cookie, any node of a cluster can finish a sign-in another started; the used states are remembered per node.
 */
public final class OidcRoutes implements Routes {
    private static final Logger log = LoggerFactory.getLogger(OidcRoutes.class);
    /** The flow cookie's name. */
    public static final String FLOW_COOKIE = "herald_oidc";
    /** How long a started sign-in may take at the provider. */
    public static final Duration FLOW_LIFETIME = Duration.ofMinutes(10);
    private static final int MAX_USED_STATES = 100_000;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final OidcSettings settings;
    private final WebGuard guard;
    private final OidcProvider provider;
    private final IdTokenVerifier verifier;
    private final OidcAccounts accounts;
    private final byte[] secret;
    private final Clock clock;
    private final Map<String, Long> usedStates = new ConcurrentHashMap<>();

    /** @param secret the installation's session secret (the flow cookie's signing key is derived from it) */
    public OidcRoutes(OidcSettings settings, WebGuard guard, OidcProvider provider, OidcAccounts accounts, byte[] secret, Clock clock) {
        this.settings = settings;
        this.guard = guard;
        this.provider = provider;
        this.verifier = new IdTokenVerifier(settings.issuerText(), settings.clientId(), settings.groupsClaim(), provider, clock);
        this.accounts = accounts;
        this.secret = secret.clone();
        this.clock = clock;
    }

    @Override
    public String name() {
        return "oidc";
    }

    /**
     * Where a browser goes to sign out at the provider too (RP-initiated logout: {@code client_id} and
     * {@code post_logout_redirect_uri}, Herald's front page): empty when {@code sign_out_at_provider} is off, the provider
     * names no end_session_endpoint, or its discovery document cannot be read now (Herald's own session has ended anyway).
     */
    public Optional<String> signOutUrl() {
        if (!settings.signOutAtProvider()) {
            return Optional.empty();
        }
        java.net.URI end;
        try {
            end = provider.discovery().endSessionEndpoint();
        } catch (OidcException e) {
            log.warn("oidc - signing out at the provider is skipped: {}", e.getMessage());
            return Optional.empty();
        }
        if (end == null) {
            return Optional.empty();
        }
        String query = "client_id=" + java.net.URLEncoder.encode(settings.clientId(), java.nio.charset.StandardCharsets.UTF_8)
                + "&post_logout_redirect_uri=" + java.net.URLEncoder.encode(settings.postLogoutRedirectUri(), java.nio.charset.StandardCharsets.UTF_8);
        String url = end.toString();
        return Optional.of(url + (end.getRawQuery() == null ? "?" : "&") + query);
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/auth/oidc/start", guard.open(false, this::start));
        routes.get(OidcSettings.CALLBACK_PATH, guard.open(false, this::callback));
    }

    private void start(Context ctx) {
        OidcProvider.Discovery d;
        try {
            d = provider.discovery();
        } catch (OidcException e) {
            log.warn("oidc - sign-in not started: {}", e.getMessage());
            page(ctx, e.status(), e.getMessage());
            return;
        }
        String state = random(24);
        String nonce = random(24);
        String codeVerifier = random(48);
        long expires = clock.instant().plus(FLOW_LIFETIME).getEpochSecond();
        String payload = expires + "." + state + "." + nonce + "." + codeVerifier;
        ctx.res().addHeader("Set-Cookie", FLOW_COOKIE + "=" + payload + "." + sign(payload) + "; Path=/auth/oidc; Max-Age="
                + FLOW_LIFETIME.toSeconds() + "; HttpOnly; SameSite=Lax" + (WebGuard.secure(ctx) ? "; Secure" : ""));
        String url = d.authorizationEndpoint() + (d.authorizationEndpoint().getRawQuery() == null ? "?" : "&")
                + "response_type=code&client_id=" + enc(settings.clientId()) + "&redirect_uri=" + enc(settings.redirectUri())
                + "&scope=" + enc(String.join(" ", settings.scopes())) + "&state=" + state + "&nonce=" + nonce
                + "&code_challenge=" + challenge(codeVerifier) + "&code_challenge_method=S256";
        ctx.header("Cache-Control", "no-store");
        ctx.redirect(url);
    }

    private void callback(Context ctx) {
        ctx.header("Cache-Control", "no-store");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.res().addHeader("Set-Cookie", FLOW_COOKIE + "=; Path=/auth/oidc; Max-Age=0; HttpOnly; SameSite=Lax"
                + (WebGuard.secure(ctx) ? "; Secure" : ""));
        try {
            Account account = finish(ctx);
            ctx.res().addHeader("Set-Cookie", WebAccess.cookie(guard.access().accounts().issue(account), WebGuard.secure(ctx)));
            log.info("web - {} signed in through {} from {}", account.name(), settings.label(), ctx.req().getRemoteAddr());
            if (account.admin()) { // an admin made by this first sign-in may be the first one (idempotent otherwise)
                guard.access().accounts().adminMade();
            }
            ctx.status(200).contentType("text/html; charset=utf-8").result("<!doctype html><html><head><meta charset=\"utf-8\">"
                    + "<meta http-equiv=\"refresh\" content=\"0;url=/\"><title>Signed in</title></head><body><p>Signed in as "
                    + html(account.name()) + ". <a href=\"/\">Continue to Herald</a></p></body></html>");
        } catch (OidcException e) {
            log.info("web - a sign-in through {} from {} was refused ({}): {}", settings.label(), ctx.req().getRemoteAddr(), e.status(),
                    e.getMessage());
            page(ctx, e.status(), e.getMessage());
        }
    }

    private Account finish(Context ctx) {
        String error = ctx.queryParam("error");
        if (error != null) {
            String what = ctx.queryParam("error_description");
            throw new OidcException(403, "the provider did not sign you in (" + OidcProvider.clip(error)
                    + (what == null ? "" : ": " + OidcProvider.clip(what)) + ")");
        }
        String[] flow = flow(ctx.cookie(FLOW_COOKIE));
        String state = ctx.queryParam("state");
        if (state == null || !MessageDigest.isEqual(state.getBytes(StandardCharsets.UTF_8), flow[1].getBytes(StandardCharsets.UTF_8))) {
            throw new OidcException(400, "the sign-in's state does not match the one this browser started (a forged or mixed-up "
                    + "sign-in); start the sign-in again");
        }
        long now = clock.instant().getEpochSecond();
        usedStates.values().removeIf(expiry -> expiry <= now);
        if (usedStates.size() >= MAX_USED_STATES) {
            throw new OidcException(503, "too many sign-ins at once; try again in a few minutes");
        }
        if (usedStates.putIfAbsent(state, Long.parseLong(flow[0])) != null) {
            throw new OidcException(400, "this sign-in was already used (a replayed link); start the sign-in again");
        }
        String code = ctx.queryParam("code");
        if (code == null || code.isBlank() || code.length() > 4096) {
            throw new OidcException(400, "the provider sent no sign-in code; start the sign-in again");
        }
        String idToken = provider.exchange(code, flow[3]);
        return accounts.signIn(verifier.verify(idToken, flow[2]));
    }

    /** The flow cookie's parts (expiry, state, nonce, verifier) when it is ours and in time. */
    private String[] flow(String cookie) {
        String[] parts = cookie == null || cookie.length() > 500 ? new String[0] : cookie.split("\\.", -1);
        if (parts.length == 5) {
            String payload = cookie.substring(0, cookie.lastIndexOf('.'));
            if (MessageDigest.isEqual(sign(payload).getBytes(StandardCharsets.US_ASCII), parts[4].getBytes(StandardCharsets.US_ASCII))) {
                try {
                    if (Long.parseLong(parts[0]) > clock.instant().getEpochSecond()) {
                        return parts;
                    }
                } catch (NumberFormatException e) {
                    // refused below
                }
            }
        }
        throw new OidcException(400, "this sign-in was not started in this browser, or took longer than " + FLOW_LIFETIME.toMinutes()
                + " minutes; start the sign-in again");
    }

    private static void page(Context ctx, int status, String message) {
        ctx.status(status).contentType("text/html; charset=utf-8").result("<!doctype html><html><head><meta charset=\"utf-8\">"
                + "<title>Sign-in refused</title><link rel=\"stylesheet\" href=\"/assets/herald.css\"></head><body class=\"oidc-refused\">"
                + "<main><h1>Sign-in refused</h1><p id=\"reason\">" + html(Character.toUpperCase(message.charAt(0)) + message.substring(1)) + "</p><p><a href=\"/\">Back to Herald</a></p></main>"
                + "</body></html>");
    }

    private String sign(String payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return B64.encodeToString(mac.doFinal(("oidc flow v1\n" + payload).getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    private static String challenge(String verifier) {
        try {
            return B64.encodeToString(MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static String random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return B64.encodeToString(b);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String html(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
