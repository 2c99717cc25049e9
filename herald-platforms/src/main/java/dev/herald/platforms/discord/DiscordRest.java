package dev.herald.platforms.discord;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.SendResult;
import dev.herald.platforms.common.Multipart;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discord's REST API, the calls Herald makes: create a message (with a file attached, or buttons, or neither), edit one,
 * answer an interaction (a button press), trigger typing, read a channel.
 *
 * <p>Rate limits: a response with {@code X-RateLimit-Remaining: 0} holds further calls on the same route
 * until {@code X-RateLimit-Reset-After} has passed (a short hold is slept here, a long one comes back as
 * a rate-limited result); a 429 comes back as {@link SendResult#rateLimited} with Discord's
 * {@code retry_after}, which the core's outbox honours. The token is only ever in the Authorization header.
 */
final class DiscordRest {
    private static final Logger log = LoggerFactory.getLogger(DiscordRest.class);
    private static final String USER_AGENT = "DiscordBot (https://github.com/herald-gateway/herald, 0.1)";
    /** Holds up to this long are waited out before sending; longer ones are returned to the caller. */
    private static final Duration MAX_INLINE_HOLD = Duration.ofSeconds(2);

    private final DiscordSettings settings;
    private final DiscordSettings.Timing timing;
    private final HttpClient http;
    private final ObjectMapper json;
    /** Per route ("POST /channels/{id}/messages"): the System.nanoTime() before which calls must wait. */
    private final Map<String, Long> heldUntil = new ConcurrentHashMap<>();

    DiscordRest(DiscordSettings settings, DiscordSettings.Timing timing, HttpClient http, ObjectMapper json) {
        this.settings = settings;
        this.timing = timing;
        this.http = http;
        this.json = json;
    }

    /**
     * Posts {@code text} in {@code channelId} (a thread's id for a thread), as a reply to {@code replyTo} when given.
     * With a {@code nonce} (at most 25 characters) Discord is asked to enforce it: a second post with the same nonce
     * within a few minutes returns the first message instead of creating another, so a resend is exactly once.
     */
    SendResult createMessage(String channelId, String text, String replyTo, String nonce) {
        return createMessage(channelId, text, replyTo, nonce, null);
    }

    /** {@link #createMessage(String, String, String, String)} with message components (an action row of buttons), when given. */
    SendResult createMessage(String channelId, String text, String replyTo, String nonce, com.fasterxml.jackson.databind.node.ArrayNode components) {
        ObjectNode body = messageBody(text, replyTo, nonce);
        if (components != null) {
            body.set("components", components);
        }
        return post(channelId, HttpRequest.BodyPublishers.ofString(body.toString()), "application/json");
    }

    /**
     * Replaces the content of the bot's message {@code messageId} in {@code channelId} ({@code PATCH}); with
     * {@code dropComponents} its buttons go too. Held and rate-limited per channel like posts.
     */
    SendResult editMessage(String channelId, String messageId, String text, boolean dropComponents) {
        ObjectNode body = json.createObjectNode().put("content", text);
        body.putObject("allowed_mentions").putArray("parse");
        if (dropComponents) {
            body.putArray("components");
        }
        String route = "PATCH /channels/" + channelId + "/messages";
        Optional<Duration> held = awaitHold(route);
        if (held.isPresent()) {
            return SendResult.rateLimited("discord - " + route + " is rate limited for " + held.get().toMillis() + " ms more", held.get());
        }
        HttpResponse<String> r;
        try {
            r = http.send(request("/channels/" + channelId + "/messages/" + messageId).header("Content-Type", "application/json")
                    .method("PATCH", HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return SendResult.failed("discord - " + route + " failed (" + e.getClass().getSimpleName() + ")", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("discord - " + route + " interrupted", true);
        }
        noteLimits(route, r);
        return result(route, r);
    }

    /**
     * Answers the interaction {@code id} ({@code POST /interactions/{id}/{token}/callback}) with {@code response} (its
     * {@code type} and {@code data}); Discord wants this within 3 seconds of the press, once. True when Discord took it.
     */
    boolean answerInteraction(String id, String token, ObjectNode response) {
        try {
            HttpResponse<String> r = http.send(request("/interactions/" + id + "/" + token + "/callback")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(response.toString())).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200 || r.statusCode() == 204) {
                return true;
            }
            log.info("discord - answering interaction {} was refused ({}{})", id, r.statusCode(),
                    errorText(r.body()).isEmpty() ? "" : ", " + errorText(r.body()));
        } catch (IOException e) {
            log.info("discord - answering interaction {} failed ({})", id, e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * Posts a file in {@code channelId} as the message's attachment, with {@code text} as its content, as {@link #createMessage}
     * does (the same nonce rule, so a resend of the upload is not a second message): a {@code multipart/form-data} request
     * with the message as {@code payload_json} and the file as {@code files[0]}.
     */
    SendResult createMessageWithFile(String channelId, String text, String replyTo, String nonce, String fileName, String contentType,
            byte[] bytes) {
        ObjectNode body = messageBody(text, replyTo, nonce);
        body.putArray("attachments").addObject().put("id", 0).put("filename", fileName);
        Multipart form = new Multipart().field("payload_json", body.toString()).file("files[0]", fileName, contentType, bytes);
        return post(channelId, HttpRequest.BodyPublishers.ofByteArray(form.body()), form.contentType());
    }

    private ObjectNode messageBody(String text, String replyTo, String nonce) {
        ObjectNode body = json.createObjectNode();
        body.put("content", text);
        if (nonce != null && !nonce.isEmpty() && nonce.length() <= 25) {
            body.put("nonce", nonce);
            body.put("enforce_nonce", true);
        }
        // the model's text must never ping @everyone, roles or users
        body.putObject("allowed_mentions").putArray("parse");
        if (replyTo != null) {
            ObjectNode ref = body.putObject("message_reference");
            ref.put("message_id", replyTo);
            ref.put("fail_if_not_exists", false);
        }
        return body;
    }

    private SendResult post(String channelId, HttpRequest.BodyPublisher body, String contentType) {
        String route = "POST /channels/" + channelId + "/messages";
        Optional<Duration> held = awaitHold(route);
        if (held.isPresent()) {
            return SendResult.rateLimited("discord - " + route + " is rate limited for " + held.get().toMillis() + " ms more", held.get());
        }
        HttpResponse<String> r;
        try {
            r = http.send(request("/channels/" + channelId + "/messages").header("Content-Type", contentType).POST(body).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return SendResult.failed("discord - " + route + " failed (" + e.getClass().getSimpleName() + ")", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return SendResult.failed("discord - " + route + " interrupted", true);
        }
        noteLimits(route, r);
        return result(route, r);
    }

    /** Shows "Herald is typing..." for about ten seconds; best-effort. */
    void typing(String channelId) {
        try {
            HttpResponse<Void> r = http.send(request("/channels/" + channelId + "/typing").POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() >= 300) {
                log.debug("discord - typing in channel {} answered {}", channelId, r.statusCode());
            }
        } catch (IOException e) {
            log.debug("discord - typing in channel {} failed ({})", channelId, e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The channel object, or empty when it cannot be read. */
    Optional<JsonNode> channel(String channelId) {
        try {
            HttpResponse<String> r = http.send(request("/channels/" + channelId).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return Optional.of(json.readTree(r.body()));
            }
            log.info("discord - reading channel {} answered {}; treating it as a plain channel", channelId, r.statusCode());
        } catch (IOException e) {
            log.info("discord - reading channel {} failed ({}); treating it as a plain channel", channelId, e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(settings.apiUri() + path))
                .timeout(timing.requestTimeout())
                .header("Authorization", "Bot " + settings.tokenValue())
                .header("User-Agent", USER_AGENT);
    }

    private SendResult result(String route, HttpResponse<String> r) {
        int status = r.statusCode();
        if (status == 200 || status == 201) {
            return SendResult.sent(field(r.body(), "id"));
        }
        if (status == 429) {
            Duration wait = retryAfter(r);
            boolean global = r.headers().firstValue("X-RateLimit-Global").map("true"::equalsIgnoreCase).orElse(false);
            return SendResult.rateLimited("discord - " + route + " rate limited (429, retry_after " + wait.toMillis() + " ms"
                    + (global ? ", global" : "") + ")", wait);
        }
        String why = "(" + status + (errorText(r.body()).isEmpty() ? "" : ", " + errorText(r.body())) + ")";
        return switch (status) {
            case 401 -> SendResult.failed("discord - the bot token was rejected " + why + "; check platforms.discord.token", false);
            case 403 -> SendResult.failed("discord - " + route + " is not allowed " + why
                    + "; give the bot View Channel and Send Messages (and Send Messages in Threads, and Attach Files for files) there", false);
            case 404 -> SendResult.failed("discord - " + route + ": no such channel " + why, false);
            case 413 -> SendResult.failed("discord - " + route + ": the file is larger than Discord takes from this bot " + why
                    + "; send a smaller file", false);
            default -> SendResult.failed("discord - " + route + " failed " + why, status >= 500 || status == 408);
        };
    }

    private Duration retryAfter(HttpResponse<String> r) {
        try {
            JsonNode body = json.readTree(r.body());
            if (body.has("retry_after")) {
                return Duration.ofMillis(Math.max(1, (long) Math.ceil(body.get("retry_after").asDouble() * 1000)));
            }
        } catch (IOException | RuntimeException e) {
            // fall back to the header
        }
        return r.headers().firstValue("Retry-After").map(DiscordRest::seconds).orElse(Duration.ofSeconds(1));
    }

    private void noteLimits(String route, HttpResponse<?> r) {
        String remaining = r.headers().firstValue("X-RateLimit-Remaining").orElse(null);
        String resetAfter = r.headers().firstValue("X-RateLimit-Reset-After").orElse(null);
        if ("0".equals(remaining) && resetAfter != null) {
            heldUntil.put(route, System.nanoTime() + seconds(resetAfter).toNanos());
        } else {
            heldUntil.remove(route);
        }
    }

    /** Waits out a short hold on {@code route}; returns the remaining hold when it is too long to wait. */
    private Optional<Duration> awaitHold(String route) {
        Long until = heldUntil.get(route);
        if (until == null) {
            return Optional.empty();
        }
        long left = until - System.nanoTime();
        if (left <= 0) {
            heldUntil.remove(route, until);
            return Optional.empty();
        }
        if (left > MAX_INLINE_HOLD.toNanos()) {
            return Optional.of(Duration.ofNanos(left));
        }
        try {
            Thread.sleep(Duration.ofNanos(left));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    private static Duration seconds(String text) {
        try {
            return Duration.ofMillis(Math.max(0, (long) Math.ceil(Double.parseDouble(text.strip()) * 1000)));
        } catch (NumberFormatException e) {
            return Duration.ofSeconds(1);
        }
    }

    private String field(String body, String name) {
        try {
            JsonNode n = json.readTree(body);
            return n.hasNonNull(name) ? n.get(name).asText() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Discord's error "code: message", without anything that could echo a request. */
    private String errorText(String body) {
        try {
            JsonNode n = json.readTree(body);
            String code = n.path("code").asText("");
            String message = n.path("message").asText("");
            return (code.isEmpty() ? "" : "code " + code + ": ") + message;
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
