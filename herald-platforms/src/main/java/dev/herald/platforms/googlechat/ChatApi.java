package dev.herald.platforms.googlechat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Chat API as the app uses it, with the service account's token as a bearer header:
 * {@code POST {api_base}/v1/spaces/{space}/messages} ({@code spaces.messages.create}, in the thread with
 * {@code messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD} and a {@code requestId} derived from the part's
 * idempotency key, so that a send repeated after a crash returns the message already made instead of a second one),
 * and {@code GET {api_base}/v1/media/{resourceName}?alt=media} (an attachment's bytes, from the API's own host only).
 *
 * <p>The token: a JWT signed with the service account's private key (RS256, {@code iss} the account's e-mail,
 * {@code scope} {@code chat.bot}, {@code aud} the token endpoint) exchanged at {@code token_url} by the JWT-bearer
 * grant, kept until a minute before it expires. The key is read from the JSON key file once, at start.
 */
final class ChatApi {
    /** The service account from its JSON key file. */
    record ServiceAccount(String clientEmail, String keyId, PrivateKey key) {
        @Override
        public String toString() {
            return "service account " + clientEmail;
        }
    }

    private final GoogleChatSettings settings;
    private final GoogleChatSettings.Timing timing;
    private final Clock clock;
    private final ServiceAccount account;
    private final JsonHttp http;
    private final URI api;
    private String token;
    private Instant tokenExpires = Instant.EPOCH;

    ChatApi(GoogleChatSettings settings, GoogleChatSettings.Timing timing, Clock clock) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.account = read(Path.of(settings.serviceAccountFile()));
        this.api = settings.apiUri();
        this.http = new JsonHttp(timing.connectTimeout(), List.of());
    }

    /**
     * Reads a service account's JSON key file ({@code client_email}, {@code private_key} in PKCS#8 PEM,
     * {@code private_key_id}).
     *
     * @throws IllegalArgumentException naming the key and what is wrong, never the key's text
     */
    static ServiceAccount read(Path file) {
        JsonNode n;
        try {
            n = JsonHttp.JSON.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("platforms.google_chat.service_account_file: " + file + " cannot be read as JSON ("
                    + e.getClass().getSimpleName() + ")");
        }
        String email = n == null ? "" : n.path("client_email").asText("");
        String pem = n == null ? "" : n.path("private_key").asText("");
        if (n == null || !"service_account".equals(n.path("type").asText("")) || email.isEmpty() || !pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new IllegalArgumentException("platforms.google_chat.service_account_file: " + file
                    + " is not a service account key (type service_account with client_email and private_key)");
        }
        try {
            String b64 = pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
            String kid = n.path("private_key_id").asText("");
            return new ServiceAccount(email, kid.isEmpty() ? null : kid, key);
        } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("platforms.google_chat.service_account_file: the private_key in " + file + " is not an RSA key in PKCS#8");
        }
    }

    ServiceAccount account() {
        return account;
    }

    /** The app's token, fetched when there is none or it expires within a minute. */
    synchronized String token() throws IOException {
        Instant now = clock.instant();
        if (token != null && now.plusSeconds(60).isBefore(tokenExpires)) {
            return token;
        }
        String assertion;
        try {
            JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(account.clientEmail()).audience(settings.tokenUrl())
                    .claim("scope", GoogleChatSettings.SCOPE).issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(3600))).build();
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).type(JOSEObjectType.JWT).keyID(account.keyId()).build(), claims);
            jwt.sign(new RSASSASigner(account.key()));
            assertion = jwt.serialize();
        } catch (JOSEException e) {
            throw new TokenRefused("google_chat - the service account's key cannot sign (" + e.getClass().getSimpleName() + ")", false);
        }
        String form = "grant_type=" + enc("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion=" + enc(assertion);
        JsonHttp.Reply r = http.send(settings.tokenUrl(), "POST", "application/x-www-form-urlencoded", form.getBytes(StandardCharsets.UTF_8), Map.of(),
                timing.requestTimeout());
        String t = r.body().path("access_token").asText("");
        if (!r.ok() || t.isEmpty()) {
            throw new TokenRefused("google_chat - the token endpoint refused the service account " + account.clientEmail() + " ("
                    + clip(r.body().path("error").asText("HTTP " + r.status())) + "); check platforms.google_chat.service_account_file",
                    r.status() >= 500 || r.status() == 429);
        }
        token = t;
        tokenExpires = now.plusSeconds(Math.max(60, Math.min(r.body().path("expires_in").asLong(3600), 86_400)));
        return token;
    }

    /** The token endpoint said no (or failed): whether a later try may help. */
    static final class TokenRefused extends IOException {
        final boolean transientFailure;

        TokenRefused(String message, boolean transientFailure) {
            super(message);
            this.transientFailure = transientFailure;
        }
    }

    /** {@code spaces.messages.create} in {@code space}, in {@code thread} (its full name) when given. */
    JsonHttp.Reply createMessage(String space, String thread, ObjectNode message, String idempotencyKey) throws IOException {
        if (thread != null) {
            message.putObject("thread").put("name", thread);
        }
        String url = api + "/v1/spaces/" + enc(space) + "/messages" + (thread != null ? "?messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" : "")
                + (idempotencyKey != null ? (thread != null ? "&" : "?") + "requestId=" + requestId(idempotencyKey) : "");
        JsonHttp.Reply r = http.post(url, message, Map.of("Authorization", "Bearer " + token()), timing.requestTimeout());
        if (r.status() == 401) {
            synchronized (this) {
                token = null;
            }
        }
        return r;
    }

    /** A request id for the Chat API from a part's idempotency key: the same key, the same id. */
    static String requestId(String idempotencyKey) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(idempotencyKey.getBytes(StandardCharsets.UTF_8));
            return "herald-" + HexFormat.of().formatHex(d, 0, 16);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An attachment's bytes: {@code GET {api_base}/v1/media/{resourceName}?alt=media} with the token, from api_base's host only. */
    MediaFetcher.Fetched download(String resourceName, long maxBytes) throws IOException {
        if (!GoogleChatEvents.resourceName(resourceName)) {
            throw new IOException("google_chat - not an attachment resource name; not fetched");
        }
        StringBuilder path = new StringBuilder();
        for (String part : resourceName.split("/", -1)) {
            path.append(path.isEmpty() ? "" : "/").append(enc(part));
        }
        String url = api + "/v1/media/" + path + "?alt=media";
        FileDownload files = new FileDownload("google_chat", Set.of(FileDownload.host(api)), timing.connectTimeout());
        return files.get(url, Map.of("Authorization", "Bearer " + token()), maxBytes, timing.requestTimeout());
    }

    /** What a refused call means, from Google's {@code {"error":{"code","message","status"}}}. */
    SendResult failure(String what, JsonHttp.Reply r) {
        String status = r.body().path("error").path("status").asText("");
        String message = r.body().path("error").path("message").asText("");
        String detail = "HTTP " + r.status() + (status.isEmpty() ? "" : " " + clip(status)) + (message.isEmpty() ? "" : ": " + clip(message));
        if (r.status() == 429) {
            Duration wait = r.header("Retry-After").flatMap(ChatApi::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("google_chat - " + what + ": rate limited (" + detail + ")", wait);
        }
        if (r.status() == 401 || r.status() == 403) {
            return SendResult.failed("google_chat - " + what + ": the Chat API refused the app (" + detail
                    + "); is the app in the space, and is the service account the Chat app's?", r.status() == 401);
        }
        return SendResult.failed("google_chat - " + what + ": " + detail, r.status() >= 500);
    }

    String describe(IOException e) {
        return e instanceof TokenRefused ? e.getMessage() : http.describe(e);
    }

    private static Optional<Duration> seconds(String header) {
        try {
            long s = Long.parseLong(header.strip());
            return s >= 0 && s <= 3600 ? Optional.of(Duration.ofSeconds(s)) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 200 ? clean.substring(0, 200) + "..." : clean;
    }
}
