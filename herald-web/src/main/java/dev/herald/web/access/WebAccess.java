package dev.herald.web.access;

import dev.herald.core.Loopback;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who may use the web pages (chat, admin) and their JSON endpoints: the one decision, as a pure function
 * of the request's facts ({@link Request}), so it can be tested without a network.
 *
 * <p>Rules.
 * <ul>
 *   <li><b>No key configured</b>: only this machine. The client's address must be loopback, the
 *       {@code Host} header must name a loopback host (a page on another site that rebinds its DNS name to
 *       127.0.0.1 sends its own name and is refused), and the request must not carry
 *       {@code X-Forwarded-For} or {@code Forwarded}: a reverse proxy on this machine would make every
 *       client of the proxy look local, so running behind one needs a key.</li>
 *   <li><b>Key configured</b> ({@code platforms.api_server.key}): any address, but every data endpoint
 *       needs a session cookie obtained by presenting the key once ({@link #issue}). The cookie is a
 *       signed, expiring token (HMAC-SHA256 with a secret derived from the key), so it survives a
 *       gateway restart and dies when the key changes. The key itself is compared in constant time
 *       (digests of both sides) and never stored, echoed or logged.</li>
 *   <li><b>Every state-changing request</b> (POST) must come from the page itself: the custom header
 *       {@value #CSRF_HEADER} (a cross-site form cannot send it, and a cross-site script cannot without a
 *       CORS preflight this server never grants), {@code Sec-Fetch-Site} when present must be
 *       {@code same-origin}, and {@code Origin} when present must match {@code Host}.</li>
 *   <li><b>The API</b> ({@link #checkApi}): with a key, the bearer key; without one, the loopback rule
 *       above plus no cross-site browser request ({@code Origin} of another site, {@code Sec-Fetch-Site}
 *       other than {@code same-origin} or {@code none}), so a web page cannot make a browser start a turn.</li>
 *   <li><b>Wrong keys</b> (bearer or login) drain the client's {@link AuthThrottle}; with none left, a
 *       request that presents a key is answered 429 before the key is compared. A client is its
 *       connection's address, or, when a key is set and the connection comes from a reverse proxy on this
 *       machine, the last address the proxy put in {@code X-Forwarded-For}/{@code Forwarded}.</li>
 *   <li><b>Logout</b> ({@link #revoke}) ends a session token on the server too ({@link SessionRevocations}).</li>
 *   <li><b>Web accounts</b> ({@link AccountSessions}): from the first account on, any address may try, and every
 *       data endpoint needs the session of an enabled account (a name and password sign-in, {@link #checkSignIn},
 *       throttled like a key); the key's own sessions and the anonymous loopback user end, while the configured key
 *       stays valid as a bearer (an admin). Before any admin exists, {@link #checkSetup} decides who may make the first.
 *       The verdict names who the request is ({@link WebUser}).</li>
 * </ul>
 */
public final class WebAccess {
    /** The session cookie's name. */
    public static final String COOKIE = "herald_session";
    /** The header every state-changing request must carry (any non-empty value; the page sends {@code 1}). */
    public static final String CSRF_HEADER = "X-Herald-Csrf";
    /** How long a session token stays valid after login (the cookie itself ends with the browser session). */
    public static final Duration SESSION_LIFETIME = Duration.ofDays(7);
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * The facts of one request that the decision needs. Header values may be null when absent.
     *
     * @param forwardedFor the {@code X-Forwarded-For} header
     * @param forwarded    the {@code Forwarded} header (RFC 7239)
     * @param what         the method and path, for log lines
     */
    public record Request(String remoteAddress, String host, String origin, String secFetchSite, String sessionCookie,
            String csrfHeader, String bearer, boolean stateChanging, String scheme, String forwardedFor, String forwarded, String what) {

        /** A request that came straight from its client (no proxy headers). */
        public Request(String remoteAddress, String host, String origin, String secFetchSite, String sessionCookie,
                String csrfHeader, String bearer, boolean stateChanging, String scheme) {
            this(remoteAddress, host, origin, secFetchSite, sessionCookie, csrfHeader, bearer, stateChanging, scheme, null, null,
                    stateChanging ? "POST" : "GET");
        }

        boolean viaProxy() {
            return forwardedFor != null || forwarded != null;
        }
    }

    /**
     * The decision: allowed (with who the request is), or refused with a status, a message that names what to do and,
     * for 429, when to retry.
     */
    public record Verdict(int status, String message, Duration retryAfter, WebUser user) {
        static final Verdict ALLOWED = new Verdict(200, "", null, WebUser.ONLY);

        Verdict(int status, String message) {
            this(status, message, null, null);
        }

        Verdict(int status, String message, Duration retryAfter) {
            this(status, message, retryAfter, null);
        }

        static Verdict as(WebUser user) {
            return new Verdict(200, "", null, user);
        }

        public boolean allowed() {
            return status == 200;
        }
    }

    private final byte[] keyDigest;
    private final byte[] signingSecret;
    private final Clock clock;
    private final AuthThrottle throttle;
    private final SessionRevocations revocations;
    private final AccountSessions accounts;

    /** @param key the configured key, or null (then only loopback clients are served) */
    public WebAccess(String key, Clock clock) {
        this(key, clock, new AuthThrottle(), SessionRevocations.inMemory());
    }

    /** Without web accounts (an empty in-memory set): the key or the loopback rule alone. */
    public WebAccess(String key, Clock clock, AuthThrottle throttle, SessionRevocations revocations) {
        this(key, clock, throttle, revocations, AccountSessions.inMemory(clock));
    }

    /**
     * @param throttle    the listener's wrong-key throttle (shared with the API on the same port)
     * @param revocations where logged-out sessions are remembered
     * @param accounts    the web accounts: once one exists, every page needs a signed-in account ({@link AccountSessions})
     */
    public WebAccess(String key, Clock clock, AuthThrottle throttle, SessionRevocations revocations, AccountSessions accounts) {
        String k = key == null || key.isBlank() ? null : key.strip();
        this.keyDigest = k == null ? null : sha256(k.getBytes(StandardCharsets.UTF_8));
        this.signingSecret = k == null ? null : hmac(keyDigest, "herald web session v1".getBytes(StandardCharsets.US_ASCII));
        this.clock = clock;
        this.throttle = throttle;
        this.revocations = revocations;
        this.accounts = java.util.Objects.requireNonNull(accounts, "accounts");
    }

    public boolean keyRequired() {
        return keyDigest != null;
    }

    /** The web accounts this access decides with. */
    public AccountSessions accounts() {
        return accounts;
    }

    /** Whether the pages need a credential (the key, or an account once one exists), so any address may try. */
    public boolean gated() {
        return keyRequired() || accounts.active();
    }

    /** Whether a request may reach a data endpoint (JSON API, event stream, metrics). */
    public Verdict check(Request r) {
        Verdict client = checkClient(r);
        if (!client.allowed()) {
            return client;
        }
        if (r.stateChanging()) {
            Verdict origin = checkSameOrigin(r);
            if (!origin.allowed()) {
                return origin;
            }
        }
        if (accounts.active()) {
            Optional<WebUser> user = accounts.user(r.sessionCookie());
            if (user.isPresent()) {
                return Verdict.as(user.get());
            }
            if (r.bearer() != null && keyRequired()) {
                return checkKey(r, r.bearer(), "sign-in required: sign in with your account's name and password");
            }
            return new Verdict(401, "sign-in required: sign in with your account's name and password");
        }
        if (keyRequired() && !validToken(r.sessionCookie())) {
            if (r.bearer() == null) {
                return new Verdict(401, "login required: enter the key configured as platforms.api_server.key");
            }
            return checkKey(r, r.bearer(), "login required: enter the key configured as platforms.api_server.key");
        }
        return Verdict.ALLOWED;
    }

    /**
     * Who the request is, by its cookie alone, when it may read data (no refusal text, no throttle): the account of a
     * valid session; before accounts, the one user when the key's session is valid or no key is set.
     */
    public Optional<WebUser> who(Request r) {
        if (accounts.active()) {
            return accounts.user(r.sessionCookie());
        }
        return !keyRequired() || validToken(r.sessionCookie()) ? Optional.of(WebUser.ONLY) : Optional.empty();
    }

    /**
     * A password sign-in: 429 while the client is throttled, 401 (counted against the client) for a wrong name or
     * password or a disabled account, else the account.
     */
    public Verdict checkSignIn(Request r, String name, String password) {
        String client = clientOf(r);
        Duration wait = throttle.blockedFor(client, r.what());
        if (!wait.isZero()) {
            return new Verdict(429, "too many wrong passwords from " + client + "; try again in " + wait.toSeconds() + " s", wait);
        }
        Optional<dev.herald.core.account.Account> account = accounts.signIn(name, password);
        if (account.isEmpty()) {
            throttle.failed(client, r.what());
            return new Verdict(401, "wrong name or password (or the account is disabled)");
        }
        return Verdict.as(WebUser.of(account.get()));
    }

    /**
     * Whether the first admin may be made by this request: only while no enabled admin exists, and only from this
     * machine (the loopback rule, no proxy), with the key's session, or with this start's setup code. A wrong code is
     * counted against the client like a wrong key.
     */
    public Verdict checkSetup(Request r, String code) {
        if (accounts.adminExists()) {
            return new Verdict(409, "an admin account exists already; sign in, or ask an admin to make your account");
        }
        boolean local = isLoopbackAddress(r.remoteAddress()) && isLoopbackHost(r.host()) && !r.viaProxy();
        if (local || keyRequired() && validToken(r.sessionCookie())) {
            return Verdict.ALLOWED;
        }
        String client = clientOf(r);
        Duration wait = throttle.blockedFor(client, r.what());
        if (!wait.isZero()) {
            return new Verdict(429, "too many wrong setup codes from " + client + "; try again in " + wait.toSeconds() + " s", wait);
        }
        if (!accounts.setupCodeMatches(code)) {
            throttle.failed(client, r.what());
            return new Verdict(403, "the first admin can be made only from this machine, or with the one-time setup code "
                    + "Herald printed in its log at start");
        }
        return Verdict.ALLOWED;
    }

    /**
     * Whether this request may take the invitation of account {@code name} with {@code code}: the account waits for its
     * invitation ({@link Invitations}), the code is its code, and the invitation has not expired. A wrong or expired code
     * is counted against the client like a wrong password, and the answer does not say which part was wrong.
     */
    public Verdict checkInvite(Request r, String name, String code) {
        String client = clientOf(r);
        Duration wait = throttle.blockedFor(client, r.what());
        if (!wait.isZero()) {
            return new Verdict(429, "too many wrong invitation codes from " + client + "; try again in " + wait.toSeconds() + " s", wait);
        }
        Optional<dev.herald.core.account.Account> account = name == null ? Optional.empty() : accounts.accounts().find(name);
        if (account.isEmpty() || account.get().disabled() || !Invitations.matches(account.get(), code, clock.instant())) {
            throttle.failed(client, r.what());
            return new Verdict(403, "this invitation link is not valid (used, replaced or expired); ask an admin for a new one");
        }
        return Verdict.as(WebUser.of(account.get()));
    }

    /**
     * Whether a request may reach the API ({@code /v1/...}). With a key: the bearer key (401 missing or
     * wrong, 429 while throttled). Without: the loopback rule and no cross-site browser request (403).
     */
    public Verdict checkApi(Request r) {
        if (!keyRequired()) {
            Verdict client = checkClient(r);
            if (!client.allowed()) {
                return client;
            }
            return checkNotCrossSite(r);
        }
        if (r.bearer() == null) {
            return new Verdict(401, "missing API key: send 'Authorization: Bearer <key>' with the key configured for api_server");
        }
        return checkKey(r, r.bearer(), "invalid API key: the bearer key does not match the key configured for api_server");
    }

    /**
     * An account's API key ({@link ApiKeys}) as the bearer: 429 while the client is throttled, 401 (counted like a wrong
     * key) for a key that is wrong, revoked or whose account is disabled; else the key's account. The key is the gate,
     * so the loopback rule does not apply.
     */
    public Verdict checkApiKey(Request r, ApiKeys keys) {
        String client = clientOf(r);
        Duration wait = throttle.blockedFor(client, r.what());
        if (!wait.isZero()) {
            return new Verdict(429, "too many wrong keys from " + client + "; try again in " + wait.toSeconds() + " s", wait);
        }
        Optional<ApiKeys.Resolved> resolved = keys.resolve(r.bearer());
        if (resolved.isEmpty()) {
            throttle.failed(client, r.what());
            return new Verdict(401, "invalid API key: no working key matches (revoked, mistyped, or its account is disabled); "
                    + "make a new one in the web chat");
        }
        return Verdict.as(WebUser.of(resolved.get().account()));
    }

    /** The login's key check: 429 while the client is throttled, 401 (counted) for a wrong key. */
    public Verdict checkLogin(Request r, String presented) {
        return checkKey(r, presented == null ? "" : presented, "wrong key: enter the key configured as platforms.api_server.key");
    }

    private Verdict checkKey(Request r, String presented, String wrongMessage) {
        String client = clientOf(r);
        Duration wait = throttle.blockedFor(client, r.what());
        if (!wait.isZero()) {
            return new Verdict(429, "too many wrong keys from " + client + "; try again in " + wait.toSeconds() + " s", wait);
        }
        if (!keyMatches(presented)) {
            throttle.failed(client, r.what());
            return new Verdict(401, wrongMessage);
        }
        return Verdict.ALLOWED;
    }

    /**
     * The client a request counts as for the throttle: its connection's address, or, when a key is set
     * and the connection comes from this machine with proxy headers, the last hop the proxy recorded.
     */
    String clientOf(Request r) {
        if (gated() && r.viaProxy() && isLoopbackAddress(r.remoteAddress())) {
            String hop = r.forwarded() != null ? ForwardedHeaders.lastForwardedFor(r.forwarded())
                    : ForwardedHeaders.lastXForwardedFor(r.forwardedFor());
            if (hop != null && ClientAddress.parse(hop) != null) {
                return ClientAddress.bucket(hop);
            }
        }
        return ClientAddress.bucket(r.remoteAddress());
    }

    /** Whether a request may load a page or log in: the loopback rule, and the same-origin rule for writes. */
    public Verdict checkPublic(Request r) {
        Verdict client = checkClient(r);
        if (!client.allowed() || !r.stateChanging()) {
            return client;
        }
        return checkSameOrigin(r);
    }

    /** True when {@code presented} is the configured key. */
    public boolean keyMatches(String presented) {
        return keyDigest != null && presented != null
                && MessageDigest.isEqual(keyDigest, sha256(presented.strip().getBytes(StandardCharsets.UTF_8)));
    }

    /** A new session token, valid for {@link #SESSION_LIFETIME}; only when a key is configured. */
    public String issue() {
        if (!keyRequired()) {
            throw new IllegalStateException("web - no key is configured, so there are no sessions to issue");
        }
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        long expires = clock.instant().plus(SESSION_LIFETIME).getEpochSecond();
        String payload = expires + "." + B64.encodeToString(nonce);
        return payload + "." + sign(payload);
    }

    /** The {@code Set-Cookie} value for a token: HttpOnly, SameSite=Strict, Path=/, Secure over TLS; no expiry (browser session). */
    public static String cookie(String token, boolean secure) {
        return COOKIE + "=" + token + "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    /** Ends a session token server-side (logout): a copy of the cookie is refused from now on, also after a restart. */
    public void revoke(String token) {
        if (validToken(token)) {
            int first = token.indexOf('.');
            String nonce = token.substring(first + 1, token.lastIndexOf('.'));
            revocations.revoke(nonce, Long.parseLong(token.substring(0, first)), clock.instant().getEpochSecond());
        }
    }

    /** The {@code Set-Cookie} value that removes the session cookie. */
    public static String expiredCookie(boolean secure) {
        return COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    boolean validToken(String token) {
        if (token == null || signingSecret == null) {
            return false;
        }
        int last = token.lastIndexOf('.');
        int first = token.indexOf('.');
        if (first <= 0 || last <= first) {
            return false;
        }
        String payload = token.substring(0, last);
        byte[] expected = sign(payload).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, token.substring(last + 1).getBytes(StandardCharsets.US_ASCII))) {
            return false;
        }
        try {
            return Long.parseLong(token.substring(0, first)) > clock.instant().getEpochSecond()
                    && !revocations.isRevoked(token.substring(first + 1, last));
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private Verdict checkClient(Request r) {
        if (gated()) {
            return Verdict.ALLOWED;
        }
        if (!isLoopbackAddress(r.remoteAddress())) {
            return new Verdict(403, "the web pages answer only this machine while no key is set; set platforms.api_server.key "
                    + "to allow other machines");
        }
        if (!isLoopbackHost(r.host())) {
            return new Verdict(403, "the Host header does not name this machine (127.0.0.1, localhost or [::1]); open the page "
                    + "by that address, or set platforms.api_server.key");
        }
        if (r.viaProxy()) {
            return new Verdict(403, "the request came through a proxy (X-Forwarded-For or Forwarded) while no key is set; "
                    + "set platforms.api_server.key to serve Herald behind a reverse proxy");
        }
        return Verdict.ALLOWED;
    }

    /** A browser's request from another site: {@code Origin} not this server, or {@code Sec-Fetch-Site} not same-origin/none. */
    private static Verdict checkNotCrossSite(Request r) {
        if (r.secFetchSite() != null && !r.secFetchSite().equalsIgnoreCase("same-origin") && !r.secFetchSite().equalsIgnoreCase("none")) {
            return new Verdict(403, "cross-site request refused (Sec-Fetch-Site: " + r.secFetchSite() + "); the API without a key "
                    + "takes no requests from web pages");
        }
        if (r.origin() != null && !sameOrigin(r.origin(), r.host())) {
            return new Verdict(403, "cross-site request refused: Origin does not match this server; the API without a key takes "
                    + "no requests from web pages");
        }
        return Verdict.ALLOWED;
    }

    private static Verdict checkSameOrigin(Request r) {
        if (r.csrfHeader() == null || r.csrfHeader().isBlank()) {
            return new Verdict(403, "cross-site request refused: state-changing requests must send the " + CSRF_HEADER + " header");
        }
        if (r.secFetchSite() != null && !r.secFetchSite().equalsIgnoreCase("same-origin")) {
            return new Verdict(403, "cross-site request refused (Sec-Fetch-Site: " + r.secFetchSite() + ")");
        }
        if (r.origin() != null && !sameOrigin(r.origin(), r.host())) {
            return new Verdict(403, "cross-site request refused: Origin does not match this server");
        }
        return Verdict.ALLOWED;
    }

    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        String o = origin.toLowerCase(Locale.ROOT);
        String h = host.toLowerCase(Locale.ROOT);
        return o.equals("http://" + h) || o.equals("https://" + h);
    }

    static boolean isLoopbackAddress(String address) {
        return Loopback.isAddress(address);
    }

    static boolean isLoopbackHost(String hostHeader) {
        return Loopback.isHost(hostHeader);
    }

    private String sign(String payload) {
        return B64.encodeToString(hmac(signingSecret, payload.getBytes(StandardCharsets.US_ASCII)));
    }

    private static byte[] hmac(byte[] secret, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
