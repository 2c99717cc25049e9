package dev.herald.platforms.sms;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.FileDownload;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The Twilio REST calls the adapter makes, with HTTP basic authentication (the account SID and auth token, or an API
 * key's SID and secret; never in a URL or a message): {@code POST /2010-04-01/Accounts/<sid>/Messages.json} (a message,
 * form-encoded {@code To}, {@code From} or {@code MessagingServiceSid}, {@code Body}, {@code MediaUrl}),
 * {@code GET /2010-04-01/Accounts/<sid>.json} (the start's credential check) and a message's media
 * ({@code GET /2010-04-01/Accounts/<sid>/Messages/<MM...>/Media/<ME...>}).
 *
 * <p>Errors come back as Twilio's {@code {"code","message","more_info","status"}}; {@link Answer#error()} reads them and
 * {@link #failure} decides by {@code code} and HTTP status.
 */
final class TwilioApi {
    /** A message SID and a media SID: what an inbound media reference holds. */
    static final Pattern MEDIA_REF = Pattern.compile("(MM|SM)[0-9a-fA-F]{32}/ME[0-9a-fA-F]{32}");
    /**
     * Where Twilio's media URLs redirect to: its CDN for media behind HTTP authentication, and the storage for media
     * without it (Twilio's "Protect media access with HTTP basic authentication" support article).
     */
    static final Set<String> MEDIA_REDIRECT_HOSTS = Set.of("mms.twiliocdn.com", "s3-external-1.amazonaws.com");

    /** One answer: the HTTP status, the body, and Twilio's error when there is one. */
    record Answer(int status, JsonNode body, TwilioError error, Optional<String> retryAfter) {
        boolean ok() {
            return status >= 200 && status < 300 && error == null;
        }
    }

    /**
     * A Twilio error.
     *
     * @param code     Twilio's error code (21610 unsubscribed recipient, 20429 too many requests, 20003 authentication, ...), 0 when none
     * @param message  Twilio's message, or the HTTP status when the body was not Twilio's
     * @param moreInfo the page about the code, when given
     */
    record TwilioError(int code, String message, String moreInfo) {
        String describe() {
            return "error " + code + ": " + message + (moreInfo == null ? "" : " (" + moreInfo + ")");
        }
    }

    private final SmsSettings settings;
    private final SmsSettings.Timing timing;
    private final JsonHttp http;
    private final URI apiUri;
    private final String accountPath;
    private final String authorization;
    private final FileDownload media;

    TwilioApi(SmsSettings settings, SmsSettings.Timing timing) {
        this.settings = settings;
        this.timing = timing;
        this.apiUri = settings.apiUri();
        String[] credentials = settings.apiCredentials();
        this.http = new JsonHttp(timing.connectTimeout(), List.of(settings.authTokenValue(), credentials[1]));
        this.accountPath = apiUri + "/2010-04-01/Accounts/" + settings.accountSid();
        this.authorization = "Basic " + Base64.getEncoder().encodeToString((credentials[0] + ":" + credentials[1]).getBytes(StandardCharsets.UTF_8));
        Set<String> hosts = new java.util.HashSet<>(MEDIA_REDIRECT_HOSTS);
        hosts.add(FileDownload.host(apiUri));
        this.media = new FileDownload("sms", hosts, timing.connectTimeout());
    }

    private Map<String, String> auth() {
        return Map.of("Authorization", authorization, "Accept", "application/json");
    }

    /** Sends one message to {@code to}: {@code body} (may be empty with a media URL) and {@code mediaUrls}. */
    Answer message(String to, String body, List<String> mediaUrls) throws IOException {
        List<String[]> form = new ArrayList<>();
        form.add(new String[] {"To", to});
        if (!settings.messagingServiceSid().isEmpty()) {
            form.add(new String[] {"MessagingServiceSid", settings.messagingServiceSid()});
        } else {
            form.add(new String[] {"From", settings.from()});
        }
        if (!body.isEmpty()) {
            form.add(new String[] {"Body", body});
        }
        mediaUrls.forEach(u -> form.add(new String[] {"MediaUrl", u}));
        StringBuilder b = new StringBuilder();
        for (String[] p : form) {
            b.append(b.isEmpty() ? "" : "&").append(enc(p[0])).append('=').append(enc(p[1]));
        }
        return answer(http.send(accountPath + "/Messages.json", "POST", "application/x-www-form-urlencoded; charset=utf-8",
                b.toString().getBytes(StandardCharsets.UTF_8), auth(), timing.requestTimeout()));
    }

    /** {@code GET /2010-04-01/Accounts/<sid>.json}: the account's name and status when the credentials may use it. */
    Answer account() throws IOException {
        return answer(http.send(accountPath + ".json", "GET", "application/x-www-form-urlencoded", new byte[0], auth(), timing.requestTimeout()));
    }

    /**
     * Downloads the media {@code ref} ({@code <message-sid>/<media-sid>}) from Twilio's API host with the credentials,
     * following its redirect only to Twilio's media hosts ({@link #MEDIA_REDIRECT_HOSTS}, which get no credentials).
     */
    MediaFetcher.Fetched download(String ref, long maxBytes) throws IOException {
        if (ref == null || !MEDIA_REF.matcher(ref).matches()) {
            throw new IOException("sms - the media reference is not a Twilio message and media SID; not fetched");
        }
        String[] sids = ref.split("/");
        return media.get(accountPath + "/Messages/" + sids[0] + "/Media/" + sids[1], auth(), maxBytes, timing.requestTimeout());
    }

    /**
     * The media reference a webhook's {@code MediaUrlN} names, when it is a media URL of this account on the configured
     * API host (same scheme, host and port); empty for any other URL, which Herald never fetches.
     */
    Optional<String> mediaRef(String url) {
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (u.getScheme() == null || !u.getScheme().equalsIgnoreCase(apiUri.getScheme()) || !FileDownload.host(u).equals(FileDownload.host(apiUri))
                || port(u) != port(apiUri) || u.getRawQuery() != null || u.getRawPath() == null) {
            return Optional.empty();
        }
        String prefix = apiUri.getRawPath() + "/2010-04-01/Accounts/" + settings.accountSid() + "/Messages/";
        String path = u.getRawPath();
        if (!path.startsWith(prefix)) {
            return Optional.empty();
        }
        String rest = path.substring(prefix.length()).replace("/Media/", "/");
        return MEDIA_REF.matcher(rest).matches() ? Optional.of(rest) : Optional.empty();
    }

    private static int port(URI u) {
        return u.getPort() != -1 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    String describe(IOException e) {
        return http.describe(e);
    }

    private Answer answer(JsonHttp.Reply r) {
        TwilioError error = null;
        if (!r.ok()) {
            JsonNode b = r.body();
            error = new TwilioError(b.path("code").asInt(0), text(b.path("message"), "HTTP " + r.status()), text(b.path("more_info"), null));
        }
        return new Answer(r.status(), r.body(), error, r.header("Retry-After"));
    }

    private String text(JsonNode n, String otherwise) {
        if (n == null || !n.isValueNode() || n.asText().isBlank()) {
            return otherwise;
        }
        String s = n.asText().replaceAll("\\p{Cntrl}", " ");
        return http.redact(s.length() > 300 ? s.substring(0, 300) + "..." : s);
    }

    /** What a failed send means, by Twilio's code and the HTTP status. */
    SendResult failure(String what, Answer a) {
        TwilioError e = a.error();
        int code = e.code();
        Optional<Duration> wait = a.retryAfter().flatMap(TwilioApi::seconds);
        if (a.status() == 429 || code == 20429) {
            return SendResult.rateLimited("sms - " + what + ": rate limited (" + e.describe() + ")", wait.orElse(timing.rateLimitWait()));
        }
        if (a.status() >= 500) {
            return wait.isPresent() ? SendResult.rateLimited("sms - " + what + ": Twilio is unavailable (" + e.describe() + ")", wait.get())
                    : SendResult.failed("sms - " + what + ": Twilio is unavailable (" + e.describe() + ")", true);
        }
        if (code == 21610) {
            return SendResult.failed("sms - " + what + ": the recipient has opted out (replied STOP) and Twilio will not send to them until "
                    + "they text START (" + e.describe() + ")", false);
        }
        if (code == 20003 || a.status() == 401) {
            return SendResult.failed("sms - " + what + ": Twilio rejected the credentials (" + e.describe() + "); check platforms.sms.account_sid "
                    + "and auth_token (or api_key_sid and api_key_secret)", false);
        }
        return SendResult.failed("sms - " + what + ": " + e.describe(), false);
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
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
