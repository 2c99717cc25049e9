package dev.herald.platforms.sms;

import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.OutboundFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Links to the agent's files for Twilio to fetch: an MMS names its media by URL ({@code MediaUrl}), and Twilio downloads
 * it from there, without credentials. So a file the agent sends is served at
 * {@code <public_url>/platforms/sms/files/<turn>-<index>-<expiry>-<mac>}: the turn and the file's place in its reply
 * (the store's record, {@link InboundSink#sentFile}, so any node serves it), the time the link ends, and an HMAC-SHA256
 * over the three keyed with the auth token, so a link can be neither guessed nor changed to another file. A link that
 * is expired, forged or names no file of an SMS turn is 404.
 */
final class SmsFileLinks {
    private static final Logger log = LoggerFactory.getLogger(SmsFileLinks.class);
    private static final Pattern LINK = Pattern.compile("([1-9][0-9]{0,17})-([0-9]{1,4})-([0-9]{1,12})-([A-Za-z0-9_-]{22})");
    static final String ROUTE = "files/{link}";

    private final byte[] key;
    private final Clock clock;
    private final Duration life;
    private final Supplier<InboundSink> sink;
    private final long maxBytes;

    SmsFileLinks(String authToken, Clock clock, Duration life, Supplier<InboundSink> sink, long maxBytes) {
        this.key = ("herald-sms-files\n" + authToken).getBytes(StandardCharsets.UTF_8);
        this.clock = clock;
        this.life = life;
        this.sink = sink;
        this.maxBytes = maxBytes;
    }

    /** The link path (after {@code /platforms/sms/}) for file {@code index} of turn {@code turnId}'s reply, valid for the configured life. */
    String path(long turnId, int index) {
        long expires = clock.instant().plus(life).getEpochSecond();
        return "files/" + turnId + "-" + index + "-" + expires + "-" + mac(turnId, index, expires);
    }

    private String mac(long turnId, int index, long expires) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] full = mac.doFinal((turnId + "\n" + index + "\n" + expires).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(full, 16));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** {@code GET files/<link>}: the file's bytes with its type, or 404. */
    InboundHttp.Response serve(InboundHttp.Request r) {
        String link = r.path().substring(r.path().lastIndexOf('/') + 1);
        Matcher m = LINK.matcher(link);
        if (!m.matches()) {
            log.info("sms - file request from {} with a malformed link; 404", r.remoteAddress());
            return InboundHttp.Response.text(404, "no such file");
        }
        long turnId = Long.parseLong(m.group(1));
        int index = Integer.parseInt(m.group(2));
        long expires = Long.parseLong(m.group(3));
        boolean macOk = MessageDigest.isEqual(mac(turnId, index, expires).getBytes(StandardCharsets.UTF_8), m.group(4).getBytes(StandardCharsets.UTF_8));
        if (!macOk || expires < clock.instant().getEpochSecond()) {
            log.info("sms - file request from {} for turn {} file {} refused (404): {}", r.remoteAddress(), turnId, index,
                    macOk ? "the link expired" : "the link was not made by Herald");
            return InboundHttp.Response.text(404, "no such file");
        }
        InboundSink s = sink.get();
        Optional<OutboundFile> file = s == null ? Optional.empty() : s.sentFile(SmsAdapter.PLATFORM, turnId, index);
        if (file.isEmpty()) {
            log.info("sms - file request for turn {} file {}: no such file of an SMS reply; 404", turnId, index);
            return InboundHttp.Response.text(404, "no such file");
        }
        try {
            byte[] bytes = file.get().read(maxBytes);
            log.info("sms - served {} ({} bytes) of turn {} to {}", file.get().name(), bytes.length, turnId, r.remoteAddress());
            return new InboundHttp.Response(200, file.get().mimeType(), bytes);
        } catch (IOException e) {
            log.warn("sms - file {} of turn {} cannot be read now: {}; 404", file.get().name(), turnId, e.getMessage());
            return InboundHttp.Response.text(404, "no such file");
        }
    }
}
