package dev.herald.platforms.sms;

import dev.herald.core.platform.Admission;
import dev.herald.core.platform.Capabilities;
import dev.herald.core.platform.ConnectionState;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.InboundSink;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.OutboundMessage;
import dev.herald.core.platform.Platform;
import dev.herald.core.platform.PlatformAdapter;
import dev.herald.core.platform.PlatformState;
import dev.herald.core.platform.SendResult;
import dev.herald.core.platform.TextFormat;
import dev.herald.core.session.StoreException;
import java.io.IOException;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SMS and MMS through Twilio ({@code sms}): messages arrive on Herald's webhook ({@link SmsWebhook}), answers go out
 * through Twilio's Messages API ({@link TwilioApi}) as plain text ({@link SmsText}). One session per phone number; the
 * chat id is the number in E.164 form. No buttons: an approval question is answered by typing {@code /approve}.
 *
 * <p>Opt-out: a message that is STOP (or a synonym, {@link SmsKeywords}) never reaches the agent; the number is marked
 * in the store's platform state, and nothing more is sent to it (no answer, no notice) until it texts START. HELP is
 * answered at once, in the webhook's TwiML, with {@code help_text}. Twilio's error 21610 (the recipient opted out with
 * Twilio) marks the number the same way.
 *
 * <p>Long answers: Twilio takes up to {@value #MAX_MESSAGE} characters per message and splits them into SMS segments
 * itself; a longer part is sent as several messages cut at paragraph, line or sentence ends ({@link SmsText#chunks}).
 * The messages of a part that went out are remembered per part (its idempotency key) in this process, so a retry after
 * a refusal mid-way continues with the next one.
 *
 * <p>Nodes: Twilio calls whichever node its URL reaches, every node sends, the opt-outs are in the store, and the
 * agent's files are served from the turn's record: any node runs any turn ({@link Capabilities.Delivery#ANY_NODE}).
 * The Messages API has no idempotency key: a message whose answer was lost to a crash is sent again (at least once).
 */
public final class SmsAdapter implements PlatformAdapter, MediaFetcher {
    private static final Logger log = LoggerFactory.getLogger(SmsAdapter.class);

    public static final Platform PLATFORM = Platform.of("sms");
    /** The longest body of one Twilio message. */
    public static final int MAX_MESSAGE = 1600;
    /** The most messages one part of an answer becomes; the gateway splits longer answers into parts first. */
    static final int MAX_MESSAGES_PER_PART = 10;
    /** MMS: at most 5 MB of media per message. */
    public static final long MAX_FILE_BYTES = 5L * 1024 * 1024;
    private static final String OPT_OUT_KEY = "optout.";

    private final SmsSettings settings;
    private final PlatformState state;
    private final TwilioApi api;
    private final SmsWebhook webhook;
    private final SmsFileLinks files;
    private final Capabilities capabilities;
    private volatile InboundSink sink;
    /** How many messages of a part (by its idempotency key) went out already, for a retry to continue after them. */
    private final Map<String, Integer> progress = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > 1024;
        }
    });

    public SmsAdapter(SmsSettings settings, SmsSettings.Timing timing, Clock clock, PlatformState state) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.state = Objects.requireNonNull(state, "state");
        Objects.requireNonNull(timing, "timing");
        this.api = new TwilioApi(settings, timing);
        this.webhook = new SmsWebhook(settings, clock, api::mediaRef, this::receive);
        this.files = new SmsFileLinks(settings.authTokenValue(), clock, timing.fileLinkLife(), () -> sink, MAX_FILE_BYTES);
        Capabilities text = new Capabilities(true, false, false, false, false, false, false, false, MAX_MESSAGE * MAX_MESSAGES_PER_PART,
                new TextFormat("plain", t -> SmsText.render(t).length()), Capabilities.Delivery.ANY_NODE);
        this.capabilities = settings.publicBase().isPresent() ? text.withFiles(MAX_FILE_BYTES, false) : text;
    }

    /** Serves Twilio's webhook and the agent's files on {@code http} (before Herald listens). */
    void serveOn(InboundHttp http) {
        http.route("POST", "webhook", webhook::receive);
        if (settings.publicBase().isPresent()) {
            http.route("GET", SmsFileLinks.ROUTE, files::serve);
        }
    }

    @Override
    public Platform platform() {
        return PLATFORM;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    /**
     * Checks the credentials against the account ({@code GET /Accounts/<sid>.json}): rejected ones stop the start naming
     * the keys; an unreachable API is logged and the webhook is served anyway.
     */
    @Override
    public void start(InboundSink inboundSink) {
        Objects.requireNonNull(inboundSink, "sink");
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTING, "checking the Twilio credentials");
        try {
            TwilioApi.Answer a = api.account();
            if (!a.ok() && (a.status() == 401 || a.error().code() == 20003)) {
                inboundSink.connectionChanged(PLATFORM, ConnectionState.STOPPED, "credentials rejected");
                throw new IllegalStateException("sms - Twilio rejected the credentials for account " + settings.accountSid() + " ("
                        + a.error().describe() + "); check platforms.sms.account_sid and auth_token (or api_key_sid and api_key_secret)");
            }
            if (!a.ok()) {
                log.warn("sms - Twilio answered {} for account {}; serving the webhook anyway", a.error().describe(), settings.accountSid());
            } else {
                log.info("sms - account {} ({}, {}), sending from {}", settings.accountSid(), a.body().path("friendly_name").asText("?"),
                        a.body().path("status").asText("?"), settings.messagingServiceSid().isEmpty() ? settings.from() : settings.messagingServiceSid());
            }
        } catch (IOException e) {
            log.warn("sms - Twilio's API is not reachable now ({}); serving the webhook, sends are retried", api.describe(e));
        }
        if (settings.publicBase().isEmpty()) {
            log.info("sms - no platforms.sms.public_url: the agent's files are not sent as MMS (the answer says so instead)");
        }
        sink = inboundSink;
        inboundSink.connectionChanged(PLATFORM, ConnectionState.CONNECTED, "webhook at " + InboundHttp.pathOf(PLATFORM, "webhook"));
    }

    /** One signed message: a keyword is handled here, anything else goes to the gateway (see the class comment). */
    private InboundHttp.Response receive(SmsWebhook.Inbound in) {
        String from = in.from();
        String sid = in.event().messageId();
        Optional<SmsKeywords> keyword = in.event().media().isEmpty() ? SmsKeywords.of(in.body()) : Optional.empty();
        try {
            if (keyword.isPresent() && keyword.get() != SmsKeywords.HELP) {
                boolean stop = keyword.get() == SmsKeywords.STOP;
                state.put(PLATFORM, Map.of(OPT_OUT_KEY + from, stop ? "stop" : "start"));
                log.info("sms - {} texted {} ({}): {}", from, keyword.get(), sid, stop ? "nothing more is sent to them until they text START"
                        : "messages to them resume");
                return SmsWebhook.twiml(SmsWebhook.EMPTY_TWIML);
            }
            if (keyword.isPresent()) {
                log.info("sms - {} asked for HELP ({}); answered with platforms.sms.help_text", from, sid);
                return SmsWebhook.twimlMessage(settings.helpText());
            }
            if (optedOut(from)) {
                log.info("sms - message {} from {}, who texted STOP: not given to the agent until they text START", sid, from);
                return SmsWebhook.twiml(SmsWebhook.EMPTY_TWIML);
            }
        } catch (RuntimeException e) {
            log.warn("sms - the store cannot record {}'s opt-out state now ({}); answered 503 so that Twilio delivers {} again", from, e.toString(), sid);
            return InboundHttp.Response.text(503, "not taken now; deliver again later");
        }
        InboundSink s = sink;
        Admission a;
        if (s == null) {
            a = Admission.REJECTED_STOPPING;
        } else {
            try {
                a = s.accept(in.event());
            } catch (RuntimeException e) {
                if (!StoreException.isOutage(e)) {
                    log.warn("sms - the gateway failed to take message {}; answered 503 so that Twilio delivers it again", sid, e);
                }
                a = Admission.REJECTED_UNAVAILABLE;
            }
        }
        if (a == Admission.REJECTED_STOPPING || a == Admission.REJECTED_UNAVAILABLE) {
            log.info("sms - message {} not taken ({}); answered 503 so that Twilio delivers it again", sid,
                    a == Admission.REJECTED_STOPPING ? "Herald is stopping" : "the store cannot write");
            return InboundHttp.Response.text(503, "not taken now; deliver again later");
        }
        log.debug("sms - message {} from {}: {}", sid, from, a);
        return SmsWebhook.twiml(SmsWebhook.EMPTY_TWIML);
    }

    private boolean optedOut(String number) {
        return state.get(PLATFORM, OPT_OUT_KEY + number).map("stop"::equals).orElse(false);
    }

    /**
     * Sends one part: its text as one or more messages, or a file as an MMS with the caption (the file's link on
     * {@code public_url}). Nothing goes to a number that texted STOP.
     */
    @Override
    public SendResult send(OutboundMessage m) {
        String to = m.target().chatId();
        boolean out;
        try {
            out = optedOut(to);
        } catch (RuntimeException e) {
            return SendResult.failed("sms - the store cannot tell now whether " + to + " opted out: " + e, true);
        }
        if (out) {
            String what = m.kind().name().toLowerCase(java.util.Locale.ROOT);
            log.warn("sms - {} texted STOP: the {} is not sent (nothing is, until they text START)", to, what);
            return SendResult.failed("sms - " + to + " texted STOP; the " + what + " was not sent (nothing is, until they text START)", false);
        }
        return m.file() != null ? sendFile(m, to) : sendText(m, to);
    }

    private SendResult sendText(OutboundMessage m, String to) {
        String rendered = SmsText.render(m.text());
        List<String> chunks = SmsText.chunks(rendered.isBlank() ? (m.text().isBlank() ? "…" : m.text().strip()) : rendered, MAX_MESSAGE);
        String key = m.idempotencyKey();
        int done = key == null ? 0 : progress.getOrDefault(key, 0);
        String last = null;
        for (int i = done; i < chunks.size(); i++) {
            SendResult r = one(to, chunks.get(i), List.of(), chunks.size() > 1 ? "message " + (i + 1) + " of " + chunks.size() : "a message");
            if (!r.success()) {
                return r;
            }
            last = r.messageId();
            if (key != null) {
                progress.put(key, i + 1);
            }
        }
        if (key != null) {
            progress.remove(key);
        }
        return SendResult.sent(last);
    }

    private SendResult sendFile(OutboundMessage m, String to) {
        OutboundFile f = m.file();
        Optional<String> base = settings.publicBase();
        Optional<long[]> ref = OutboundFile.parseReplyRef(f.ref());
        String caption = SmsText.render(m.text());
        if (base.isEmpty() || ref.isEmpty()) {
            String note = "(The file " + f.name() + " was not sent: " + (base.isEmpty() ? "platforms.sms.public_url is not set" : "it is not kept")
                    + ".)";
            return one(to, caption.isBlank() ? note : clipMessage(caption + "\n" + note), List.of(), "a note about a file");
        }
        String url = base.get() + InboundHttp.pathOf(PLATFORM, files.path(ref.get()[0], (int) ref.get()[1]));
        return one(to, clipMessage(caption), List.of(url), "the file " + f.name());
    }

    private static String clipMessage(String s) {
        return s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE - 1) + "…";
    }

    private SendResult one(String to, String body, List<String> mediaUrls, String what) {
        try {
            TwilioApi.Answer a = api.message(to, body, mediaUrls);
            if (a.ok()) {
                String sid = a.body().path("sid").asText("");
                return SendResult.sent(sid.isEmpty() ? null : sid);
            }
            SendResult r = api.failure("sending " + what + " to " + to, a);
            if (a.error().code() == 21610) {
                markOptedOut(to);
            }
            if (!r.retryable()) {
                log.warn("{}; not retried", r.error());
            }
            return r;
        } catch (IOException e) {
            return SendResult.failed("sms - sending " + what + " to " + to + ": " + api.describe(e), true);
        }
    }

    private void markOptedOut(String to) {
        try {
            state.put(PLATFORM, Map.of(OPT_OUT_KEY + to, "stop"));
            log.warn("sms - Twilio says {} opted out (21610): marked, nothing more is sent to them until they text START", to);
        } catch (RuntimeException e) {
            log.debug("sms - could not note {}'s opt-out in the store ({})", to, e.toString());
        }
    }

    /** The bytes of an MMS's media: fetched from Twilio's API host with the credentials ({@link TwilioApi#download}). */
    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        return api.download(ref.ref(), maxBytes);
    }

    @Override
    public void close() {
        sink = null;
    }
}
