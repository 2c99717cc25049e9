package dev.herald.platforms.dingtalk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.InboundHttp;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The robot's HTTP mode: DingTalk POSTs each message (the same JSON as a Stream robot message) to
 * {@code /platforms/dingtalk/robot} on the API server's listener, with headers {@code timestamp} (milliseconds) and
 * {@code sign} = Base64(HmacSHA256(key: the app secret, data: timestamp + "\n" + app secret)).
 *
 * <p>Before the body is parsed, the signature is checked in constant time (missing, malformed or wrong: 401) and the
 * timestamp must lie within {@link DingTalkSettings.Timing#timestampWindow()} (one hour) of Herald's clock (else 403: a
 * replay, or a clock that is off). A body that is not a JSON object is 400. A message is then handled as a Stream one:
 * 200 once stored, refused, ignored or found to be a duplicate (the store drops a repeated {@code msgId}), 503 when it
 * was not taken (Herald stopping, the store unable to write). The answer carries no message: replies go through the
 * session webhook or the send API, as in Stream mode.
 */
final class DingTalkCallback {
    private static final Logger log = LoggerFactory.getLogger(DingTalkCallback.class);
    static final String PATH = "robot";
    private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,15}");
    private static final Pattern SIGN = Pattern.compile("[A-Za-z0-9+/=%]{1,128}");

    private final byte[] secret;
    private final Clock clock;
    private final Duration window;
    private final Predicate<JsonNode> receiver;

    /** @param receiver takes one robot message; true when it was taken (stored, refused, ignored, a duplicate) */
    DingTalkCallback(String secret, Clock clock, Duration window, Predicate<JsonNode> receiver) {
        this.secret = secret.getBytes(StandardCharsets.UTF_8);
        this.clock = clock;
        this.window = window;
        this.receiver = receiver;
    }

    void serveOn(InboundHttp http) {
        http.route("POST", PATH, this::receive);
    }

    InboundHttp.Response receive(InboundHttp.Request r) {
        String timestamp = r.header("timestamp").orElse("");
        String sign = r.header("sign").orElse("");
        if (!TIMESTAMP.matcher(timestamp).matches() || !SIGN.matcher(sign).matches()) {
            log.warn("dingtalk - a robot callback from {} without a well-formed timestamp and sign header; refused (401), nothing read or stored",
                    r.remoteAddress());
            return InboundHttp.Response.text(401, "refused: missing or malformed timestamp or sign");
        }
        if (!MessageDigest.isEqual(sign(timestamp).getBytes(StandardCharsets.UTF_8), decoded(sign).getBytes(StandardCharsets.UTF_8))) {
            log.warn("dingtalk - a robot callback from {} with a wrong sign (not signed with platforms.dingtalk.client_secret); refused (401), "
                    + "nothing read or stored", r.remoteAddress());
            return InboundHttp.Response.text(401, "refused: wrong sign");
        }
        Duration off = Duration.between(Instant.ofEpochMilli(Long.parseLong(timestamp)), clock.instant()).abs();
        if (off.compareTo(window) > 0) {
            log.warn("dingtalk - a robot callback from {} signed {} s from Herald's clock, outside the {} s window (a replay, or a clock that is "
                    + "off); refused (403), nothing stored", r.remoteAddress(), off.toSeconds(), window.toSeconds());
            return InboundHttp.Response.text(403, "refused: timestamp outside the " + window.toSeconds() + " s window");
        }
        JsonNode data;
        try {
            data = JsonHttp.JSON.readTree(r.body());
        } catch (IOException e) {
            data = null;
        }
        if (data == null || !data.isObject()) {
            log.warn("dingtalk - a signed robot callback whose body is not a JSON object ({} bytes); refused (400), nothing stored", r.body().length);
            return InboundHttp.Response.text(400, "the body is not a JSON object");
        }
        if (!receiver.test(data)) {
            return InboundHttp.Response.text(503, "not taken now; send again later");
        }
        return InboundHttp.Response.ok();
    }

    /** The sign DingTalk computes for {@code timestamp}. */
    String sign(String timestamp) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] digest = mac.doFinal((timestamp + "\n" + new String(secret, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** The header as sent, or URL-decoded when a proxy left it encoded ({@code %2B} for {@code +}). */
    private static String decoded(String sign) {
        if (!sign.contains("%")) {
            return sign;
        }
        try {
            return java.net.URLDecoder.decode(sign, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return sign;
        }
    }
}
