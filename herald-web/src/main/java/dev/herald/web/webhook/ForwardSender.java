package dev.herald.web.webhook;

import dev.herald.core.gateway.TextSplitter;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.SendResult;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a webhook turn's reply through another platform's adapter: split to that platform's limit (code
 * blocks kept whole, as the outbox does) and each part retried on a rate limit or transient error,
 * honouring the platform's retry-after. The webhook turn's reply is what the outbox records, so a failure
 * on the first part is returned as it is (the outbox keeps the reply for redelivery); once a part went out,
 * a later failure is final, so that redelivery never repeats the parts already sent.
 */
final class ForwardSender {
    private static final Logger log = LoggerFactory.getLogger(ForwardSender.class);
    private static final int ATTEMPTS = 3;
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    SendResult forward(PlatformAdapter target, Delivery.Forward to, OutboundMessage message) {
        List<String> parts = TextSplitter.split(message.text(), target.capabilities().maxTextLength());
        SendResult last = null;
        for (int i = 0; i < parts.size(); i++) {
            OutboundMessage part = new OutboundMessage(to.target(), parts.get(i), message.kind(), null, null, i + 1, parts.size());
            last = withRetry(target, part);
            if (!last.success()) {
                if (i == 0) {
                    return last;
                }
                log.warn("webhook - forwarding to {} stopped after {} of {} part(s): {}; the rest is not sent", to, i, parts.size(), last.error());
                return SendResult.failed("webhook - forwarding to " + to + " failed after " + i + " of " + parts.size() + " part(s)", false);
            }
        }
        log.info("webhook - reply forwarded to {} ({} chars, {} part(s))", to, message.text().length(), parts.size());
        return last;
    }

    private static SendResult withRetry(PlatformAdapter target, OutboundMessage part) {
        SendResult r = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                r = target.send(part);
            } catch (RuntimeException e) {
                r = SendResult.failed(target.platform() + " - send failed (" + e.getClass().getSimpleName() + ")", true);
            }
            if (r.success() || !r.retryable() || attempt == ATTEMPTS) {
                return r;
            }
            Duration wait = r.retryAfter() != null ? r.retryAfter() : Duration.ofMillis(250L << (attempt - 1));
            if (wait.compareTo(MAX_WAIT) > 0) {
                return r;
            }
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return r;
            }
        }
        return r;
    }
}
