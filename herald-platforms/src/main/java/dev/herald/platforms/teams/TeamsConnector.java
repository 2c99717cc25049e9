package dev.herald.platforms.teams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Bot Connector REST API as Herald uses it: {@code POST {serviceUrl}/v3/conversations/{conversationId}/activities}
 * (a new message, a typing activity) and {@code .../activities/{activityId}} (a reply), with the bot's token as a
 * bearer header. The token comes from the configured token endpoint by the client-credentials grant (app id and
 * password, scope {@code https://api.botframework.com/.default}) and is kept until shortly before it expires.
 *
 * <p>Herald posts only to a serviceUrl on {@code service_url_hosts} (the activity's serviceUrl was also checked against
 * the JWT's {@code serviceurl} claim when it arrived), and sends its token only there: a forged serviceUrl can make it
 * post nowhere else.
 */
final class TeamsConnector {
    private final TeamsSettings settings;
    private final TeamsSettings.Timing timing;
    private final Clock clock;
    private final JsonHttp http;
    private String token;
    private Instant tokenExpires = Instant.EPOCH;

    TeamsConnector(TeamsSettings settings, TeamsSettings.Timing timing, Clock clock) {
        this.settings = settings;
        this.timing = timing;
        this.clock = clock;
        this.http = new JsonHttp(timing.connectTimeout(), List.of(settings.appPasswordValue()));
    }

    /** Whether {@code url} is an origin Herald may post to: https on a {@code service_url_hosts} host, or a configured origin. */
    static boolean allowed(String url, List<String> rules) {
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException e) {
            return false;
        }
        String host = FileDownload.host(u);
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (host.isEmpty() || u.getRawUserInfo() != null) {
            return false;
        }
        for (String rule : rules) {
            if (rule.contains("://")) {
                URI r = URI.create(rule);
                if (scheme.equals(r.getScheme().toLowerCase(Locale.ROOT)) && host.equals(FileDownload.host(r)) && port(u) == port(r)) {
                    return true;
                }
            } else if (scheme.equals("https") && (u.getPort() == -1 || u.getPort() == 443) && hostMatches(host, rule)) {
                return true;
            }
        }
        return false;
    }

    static boolean hostMatches(String host, String rule) {
        return rule.startsWith("*.") ? host.endsWith(rule.substring(1)) && host.length() > rule.length() - 1 : host.equals(rule);
    }

    private static int port(URI u) {
        return u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /** The bot's token, fetched when there is none or it expires within a minute. */
    synchronized String token() throws IOException {
        if (token != null && clock.instant().plusSeconds(60).isBefore(tokenExpires)) {
            return token;
        }
        String form = "grant_type=client_credentials&client_id=" + enc(settings.appId()) + "&client_secret=" + enc(settings.appPasswordValue())
                + "&scope=" + enc(TeamsSettings.SCOPE);
        JsonHttp.Reply r = http.send(settings.tokenUrl(), "POST", "application/x-www-form-urlencoded", form.getBytes(StandardCharsets.UTF_8),
                Map.of(), timing.requestTimeout());
        String t = r.body().path("access_token").asText("");
        if (!r.ok() || t.isEmpty()) {
            String error = r.body().path("error").asText("HTTP " + r.status());
            throw new TokenRefused("teams - the token endpoint refused the app's credentials (" + http.redact(clip(error))
                    + "); check platforms.teams.app_id and platforms.teams.app_password", r.status() >= 500);
        }
        long seconds = r.body().path("expires_in").asLong(3600);
        token = t;
        tokenExpires = clock.instant().plusSeconds(Math.max(60, Math.min(seconds, 86_400)));
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

    synchronized void forgetToken() {
        token = null;
    }

    /** Posts {@code activity} into {@code conversation}, as a reply to {@code replyTo} when given. */
    JsonHttp.Reply post(String serviceUrl, String conversation, String replyTo, ObjectNode activity) throws IOException {
        if (!allowed(serviceUrl, settings.serviceUrlHosts())) {
            throw new IOException("teams - serviceUrl " + clip(serviceUrl) + " is not on platforms.teams.service_url_hosts; not posted");
        }
        String base = serviceUrl.endsWith("/") ? serviceUrl.substring(0, serviceUrl.length() - 1) : serviceUrl;
        String url = base + "/v3/conversations/" + enc(conversation) + "/activities" + (replyTo == null ? "" : "/" + enc(replyTo));
        JsonHttp.Reply r = http.post(url, activity, Map.of("Authorization", "Bearer " + token()), timing.requestTimeout());
        if (r.status() == 401) {
            forgetToken();
        }
        return r;
    }

    /**
     * Downloads an attachment: {@code c:<url>} from a serviceUrl host (with the bot's token), {@code d:<url>} (a
     * pre-authenticated OneDrive or SharePoint link) from a {@code file_hosts} host over https, without it.
     */
    MediaFetcher.Fetched download(String ref, long maxBytes) throws IOException {
        boolean connector = ref.startsWith("c:");
        if (!connector && !ref.startsWith("d:")) {
            throw new IOException("teams - not an attachment reference Herald made");
        }
        String url = ref.substring(2);
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException("teams - the attachment's address is not a URL");
        }
        String host = FileDownload.host(uri);
        boolean ok = connector ? allowed(url, settings.serviceUrlHosts())
                : "https".equalsIgnoreCase(uri.getScheme()) && settings.fileHosts().stream().anyMatch(r -> hostMatches(host, r));
        if (!ok) {
            throw new IOException("teams - attachment host " + (host.isEmpty() ? "(none)" : host) + " is not on platforms.teams."
                    + (connector ? "service_url_hosts" : "file_hosts") + "; not fetched");
        }
        FileDownload files = new FileDownload("teams", Set.of(host), timing.connectTimeout());
        Map<String, String> headers = connector ? Map.of("Authorization", "Bearer " + token()) : Map.of();
        return files.get(url, headers, maxBytes, timing.requestTimeout());
    }

    /** What a refused post means: 429 waits, 401/403 are the app's credentials, 5xx may pass. */
    SendResult failure(String what, JsonHttp.Reply r) {
        String code = r.body().path("error").path("code").asText("");
        String message = r.body().path("error").path("message").asText("");
        String detail = "HTTP " + r.status() + (code.isEmpty() ? "" : " " + clip(code)) + (message.isEmpty() ? "" : ": " + http.redact(clip(message)));
        if (r.status() == 429) {
            Duration wait = r.header("Retry-After").flatMap(TeamsConnector::seconds).orElse(timing.rateLimitWait());
            return SendResult.rateLimited("teams - " + what + ": rate limited (" + detail + ")", wait);
        }
        if (r.status() == 401 || r.status() == 403) {
            return SendResult.failed("teams - " + what + ": the Bot Connector refused the bot's token (" + detail
                    + "); check platforms.teams.app_id, app_password and token_url", r.status() == 401);
        }
        return SendResult.failed("teams - " + what + ": " + detail, r.status() >= 500);
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

    static JsonNode body(JsonHttp.Reply r) {
        return r.body();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 200 ? clean.substring(0, 200) + "..." : clean;
    }
}
