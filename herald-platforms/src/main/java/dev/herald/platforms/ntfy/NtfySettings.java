package dev.herald.platforms.ntfy;

import dev.herald.core.config.ConfigChecks;
import dev.herald.core.config.Doc;
import dev.herald.core.config.EnvOverride;
import dev.herald.core.config.HomeChannelConfig;
import dev.herald.core.config.PlatformAccess;
import dev.herald.core.config.Secret;
import dev.herald.core.config.UnauthorizedDm;
import dev.herald.core.config.Validated;
import dev.herald.core.retry.Backoff;
import dev.herald.platforms.common.BaseUrl;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code platforms.ntfy:} one ntfy topic as a chat: Herald subscribes to {@code <base_url>/<topic>/json} and answers by
 * publishing to the topic (or to {@code reply_topic}). ntfy has no sender identity: whoever can publish to the topic
 * talks to the agent, so the section must say so with {@code allow_all_users: true}, and the topic should be protected
 * by ntfy's access control (a token or a user with write access). {@link #toString()} masks the credentials.
 */
public record NtfySettings(
        @Doc("read an ntfy topic as a chat and answer on it")
        boolean enabled,
        @Doc("the ntfy server, e.g. https://ntfy.sh or your own")
        String baseUrl,
        @Doc("the topic Herald reads (the chat); required when enabled")
        String topic,
        @Doc("the topic Herald publishes answers to; not set = the same topic (Herald skips its own messages by their tag)")
        String replyTopic,
        @Doc("an access token (tk_...) sent as a bearer token; or set username and password")
        @EnvOverride({"NTFY_TOKEN"})
        Secret token,
        @Doc("a user for basic auth, when no token is set")
        String username,
        @Doc("that user's password")
        @EnvOverride({"NTFY_PASSWORD"})
        Secret password,
        @Doc("the tag on every message Herald publishes (shown as an emoji when it names one); messages with it are never answered")
        String ownTag,
        @Doc("the Title of Herald's messages; not set = none")
        String title,
        @Doc("the Priority of Herald's messages, 1 (min) to 5 (max)")
        int priority,
        @Doc("send answers with Markdown: yes (the web app renders it; the phone apps show the text)")
        boolean markdown,
        @Doc("must stay empty: ntfy messages carry no sender, so there are no users to list (see allow_all_users)")
        List<String> allowedUsers,
        @Doc("must be true when enabled: ntfy has no sender identity, so whoever can publish to the topic talks to the agent")
        boolean allowAllUsers,
        @Doc("the topic name here makes everyone who can publish to it an admin (/restart, /sethome); empty = nobody")
        List<String> admins,
        HomeChannelConfig homeChannel,
        @Doc("unused: there are no unknown senders on ntfy")
        UnauthorizedDm unauthorizedDm) implements PlatformAccess, Validated {

    public static final String DEFAULT_BASE_URL = "https://ntfy.sh";
    public static final String DEFAULT_OWN_TAG = "robot";
    private static final Pattern TOPIC = Pattern.compile("[-_A-Za-z0-9]{1,64}");
    private static final Pattern TAG = Pattern.compile("[-_A-Za-z0-9]{1,64}");

    /**
     * Time values of the stream and the client; not configured (tests shorten them).
     *
     * @param reconnectInitial the first wait after the stream dropped
     * @param reconnectMax     the longest wait between two attempts
     * @param connectTimeout   connecting to the server
     * @param idleTimeout      nothing (not even ntfy's keepalive, every 45 s) for this long: the stream is opened again
     * @param requestTimeout   one publish, an upload included
     * @param firstConnectWait how long {@code start} waits for the first attempt to end
     * @param rateLimitWait    how long a publish waits after 429 without a Retry-After
     */
    public record Timing(Duration reconnectInitial, Duration reconnectMax, Duration connectTimeout, Duration idleTimeout,
            Duration requestTimeout, Duration firstConnectWait, Duration rateLimitWait) {
        public Timing {
            Objects.requireNonNull(reconnectInitial, "reconnectInitial");
            Objects.requireNonNull(reconnectMax, "reconnectMax");
            Objects.requireNonNull(connectTimeout, "connectTimeout");
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(firstConnectWait, "firstConnectWait");
            Objects.requireNonNull(rateLimitWait, "rateLimitWait");
        }

        public static Timing defaults() {
            return new Timing(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofSeconds(10), Duration.ofSeconds(120),
                    Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(10));
        }

        Backoff backoff() {
            return new Backoff(reconnectInitial, reconnectMax);
        }
    }

    public NtfySettings {
        baseUrl = baseUrl == null || baseUrl.isBlank() ? DEFAULT_BASE_URL : baseUrl.strip().replaceAll("/+$", "");
        topic = topic == null ? "" : topic.strip();
        replyTopic = replyTopic == null || replyTopic.isBlank() ? null : replyTopic.strip();
        token = token == null ? Secret.NONE : token;
        username = username == null || username.isBlank() ? null : username.strip();
        password = password == null ? Secret.NONE : password;
        ownTag = ownTag == null || ownTag.isBlank() ? DEFAULT_OWN_TAG : ownTag.strip();
        title = title == null || title.isBlank() ? null : title.strip();
        priority = priority == 0 ? 3 : priority;
        allowedUsers = PlatformAccess.ids(allowedUsers);
        admins = PlatformAccess.ids(admins);
        homeChannel = homeChannel == null ? HomeChannelConfig.defaults() : homeChannel;
        unauthorizedDm = unauthorizedDm == null ? UnauthorizedDm.PAIR : unauthorizedDm;
    }

    public static NtfySettings defaults() {
        return new NtfySettings(false, DEFAULT_BASE_URL, "", null, Secret.NONE, null, Secret.NONE, DEFAULT_OWN_TAG, null, 3, false, List.of(),
                false, List.of(), HomeChannelConfig.defaults(), UnauthorizedDm.PAIR);
    }

    /** Enabled settings for one topic with a token, everyone who can publish allowed, every other key at its default. */
    public static NtfySettings of(String baseUrl, String topic, String token) {
        NtfySettings d = defaults();
        return new NtfySettings(true, baseUrl, topic, null, token == null ? Secret.NONE : Secret.of(token), null, Secret.NONE, d.ownTag, null,
                d.priority, false, List.of(), true, List.of(), d.homeChannel, d.unauthorizedDm);
    }

    public NtfySettings withReplyTopic(String reply) {
        return new NtfySettings(enabled, baseUrl, topic, reply, token, username, password, ownTag, title, priority, markdown, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public NtfySettings withLook(String newTitle, int newPriority, boolean md) {
        return new NtfySettings(enabled, baseUrl, topic, replyTopic, token, username, password, ownTag, newTitle, newPriority, md, allowedUsers,
                allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    public NtfySettings withBasicAuth(String user, String pass) {
        return new NtfySettings(enabled, baseUrl, topic, replyTopic, Secret.NONE, user, Secret.of(pass), ownTag, title, priority, markdown,
                allowedUsers, allowAllUsers, admins, homeChannel, unauthorizedDm);
    }

    @Override
    public void validate(ConfigChecks check) {
        PlatformAccess.validateAccess(this, check);
        check.require(!enabled || TOPIC.matcher(topic).matches(), "topic", "is required when " + check.path("enabled")
                + " is true: the topic name (letters, digits, - and _, at most 64), was \"" + topic + "\"");
        check.require(topic.isEmpty() || TOPIC.matcher(topic).matches(), "topic", "must be letters, digits, - and _ (at most 64), was \""
                + topic + "\"");
        check.require(replyTopic == null || TOPIC.matcher(replyTopic).matches(), "reply_topic", "must be letters, digits, - and _ (at most 64), was \""
                + replyTopic + "\"");
        check.require(BaseUrl.valid(baseUrl, "http", "https"), "base_url", "must be an http(s) URL such as " + DEFAULT_BASE_URL + ", was \""
                + baseUrl + "\"");
        check.require(TAG.matcher(ownTag).matches(), "own_tag", "must be letters, digits, - and _, was \"" + ownTag + "\"");
        check.require(priority >= 1 && priority <= 5, "priority", "must be 1 to 5, was " + priority);
        check.require(!token.isSet() || username == null, "username", "must not be set together with " + check.path("token")
                + ": use a token or a user, not both");
        check.require(username == null || password.isSet(), "password", "is required with " + check.path("username"));
        check.require(allowedUsers.isEmpty(), "allowed_users", "must stay empty: ntfy messages carry no sender, so users cannot be told apart;"
                + " access is by who can publish to the topic (set " + check.path("allow_all_users") + ": true and protect the topic)");
        check.require(!enabled || allowAllUsers, "allow_all_users", "must be true when " + check.path("enabled") + " is true: ntfy has no sender "
                + "identity, so whoever can publish to topic \"" + topic + "\" talks to the agent; protect the topic with ntfy's access control "
                + "and a token, then say so with allow_all_users: true");
        check.require(title == null || title.length() <= 200, "title", "must be at most 200 characters");
    }

    URI baseUri() {
        return BaseUrl.of(baseUrl);
    }

    /** The topic answers go to. */
    String publishTopic() {
        return replyTopic == null ? topic : replyTopic;
    }

    /** The Authorization header's value, when credentials are set. */
    Optional<String> authorization() {
        if (token.isSet()) {
            return token.reveal().map(t -> "Bearer " + t);
        }
        if (username != null) {
            String pass = password.reveal().orElse("");
            return Optional.of("Basic " + Base64.getEncoder().encodeToString((username + ":" + pass).getBytes(StandardCharsets.UTF_8)));
        }
        return Optional.empty();
    }

    List<String> secrets() {
        return java.util.stream.Stream.of(token.reveal(), password.reveal()).flatMap(Optional::stream).toList();
    }

    @Override
    public String toString() {
        return "ntfy{base_url=" + baseUrl + ", topic=" + topic + (replyTopic == null ? "" : ", reply_topic=" + replyTopic)
                + (token.isSet() ? ", token=****" : "") + (username == null ? "" : ", username=" + username + ", password=****")
                + ", own_tag=" + ownTag + "}";
    }
}
