package dev.herald.platforms.sms;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.InboundHttp;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Twilio's call for each message to the number: {@code POST /platforms/sms/webhook}, a form with {@code MessageSid},
 * {@code AccountSid}, {@code From}, {@code To}, {@code Body}, {@code NumMedia} and {@code MediaUrlN} /
 * {@code MediaContentTypeN}. Its {@code X-Twilio-Signature} ({@link TwilioSignature}) is checked in constant time before
 * any field is read: a missing or wrong one is 403 and nothing is read or stored (the form is only decoded to sign it;
 * a body that is not a form is 400). A signed message is read ({@link #read}) and handed to the adapter, whose answer
 * is the response: empty TwiML ({@code <Response/>}, text/xml) once it is stored or skipped, TwiML with a
 * {@code <Message>} for HELP, 503 when the store cannot take it (Twilio then retries, per the number's fallback).
 */
final class SmsWebhook {
    private static final Logger log = LoggerFactory.getLogger(SmsWebhook.class);
    static final String EMPTY_TWIML = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response/>";
    private static final Pattern SID = Pattern.compile("(SM|MM)[0-9a-fA-F]{32}");
    private static final Pattern SIGNATURE = Pattern.compile("[A-Za-z0-9+/]{27}=");
    static final int MAX_MEDIA = 10;
    private static final int MAX_TEXT = 65_536;

    /** A message someone texted: its SID, the sender and the number it went to, the text and the media Herald may fetch. */
    record Inbound(MessageEvent event, String from, String to, String body) {
    }

    /** What a signed form was: a message, or a reason it is skipped. */
    record Read(Inbound inbound, String skipped, List<String> notes) {
    }

    private final TwilioSignature signature;
    private final String publicBase;
    private final String accountSid;
    private final Function<String, Optional<String>> mediaRef;
    private final Function<Inbound, InboundHttp.Response> receiver;
    private final java.time.Clock clock;

    /**
     * @param mediaRef the media reference a {@code MediaUrlN} names when it is on Twilio's API host ({@link TwilioApi#mediaRef})
     * @param receiver what the adapter makes of one signed message (the response)
     */
    SmsWebhook(SmsSettings settings, java.time.Clock clock, Function<String, Optional<String>> mediaRef,
            Function<Inbound, InboundHttp.Response> receiver) {
        this.clock = clock;
        this.signature = new TwilioSignature(settings.authTokenValue());
        this.publicBase = settings.publicBase().orElse(null);
        this.accountSid = settings.accountSid();
        this.mediaRef = mediaRef;
        this.receiver = receiver;
    }

    static InboundHttp.Response twiml(String xml) {
        return new InboundHttp.Response(200, "text/xml; charset=utf-8", xml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** TwiML that answers with {@code text} as a message. */
    static InboundHttp.Response twimlMessage(String text) {
        String x = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return twiml("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Message>" + x + "</Message></Response>");
    }

    /** One call: signature first, then the message to the adapter; answered as the class comment says. */
    InboundHttp.Response receive(InboundHttp.Request r) {
        String given = r.header("X-Twilio-Signature").orElse("");
        if (!SIGNATURE.matcher(given).matches()) {
            log.warn("sms - webhook call from {} {}; refused (403), nothing read", r.remoteAddress(),
                    given.isEmpty() ? "without X-Twilio-Signature" : "with a malformed X-Twilio-Signature");
            return InboundHttp.Response.text(403, "missing or malformed signature");
        }
        TwilioForm form;
        try {
            form = TwilioForm.parse(r.body());
        } catch (TwilioForm.Malformed e) {
            log.warn("sms - webhook call from {} whose body is not a form ({}, {} bytes); refused (400), nothing read", r.remoteAddress(),
                    e.getMessage(), r.body().length);
            return InboundHttp.Response.text(400, "the body is not a form");
        }
        String url = TwilioSignature.signedUrl(r.url(), publicBase);
        if (!signature.valid(given, url, form)) {
            log.warn("sms - webhook call from {} with a wrong X-Twilio-Signature (not made with platforms.sms.auth_token over {}{}); "
                    + "refused (403), nothing read", r.remoteAddress(), url, publicBase == null
                            ? "; behind a proxy set platforms.sms.public_url to the URL Twilio calls" : "");
            return InboundHttp.Response.text(403, "bad signature");
        }
        Read read = read(form, accountSid, mediaRef, clock.instant());
        read.notes().forEach(n -> log.info("sms - {}", n));
        if (read.inbound() == null) {
            log.info("sms - webhook: skipped {}", read.skipped());
            return twiml(EMPTY_TWIML);
        }
        return receiver.apply(read.inbound());
    }

    /**
     * Reads a signed form into a message. Nothing here throws: what is not a message from a phone number to this account
     * is {@link Read#skipped()}, and media not on Twilio's API host is left out with a note.
     */
    static Read read(TwilioForm form, String accountSid, Function<String, Optional<String>> mediaRef, Instant now) {
        List<String> notes = new ArrayList<>();
        String sid = form.get("MessageSid");
        if (!SID.matcher(sid).matches()) {
            return new Read(null, "a call without a usable MessageSid (a status callback or not a message)", notes);
        }
        if (!form.get("AccountSid").equals(accountSid)) {
            return new Read(null, "message " + sid + " for another account than platforms.sms.account_sid", notes);
        }
        String from = SmsSettings.e164(form.get("From"));
        if (!SmsSettings.E164.matcher(from == null ? "" : from).matches()) {
            return new Read(null, "message " + sid + " from " + clip(form.get("From")) + ", which is not a phone number in E.164 form", notes);
        }
        String body = form.get("Body");
        if (body.length() > MAX_TEXT) {
            body = body.substring(0, MAX_TEXT);
        }
        List<MessageEvent.MediaRef> media = new ArrayList<>();
        String num = form.get("NumMedia");
        int n = num.matches("[0-9]{1,3}") ? Math.min(Integer.parseInt(num), MAX_MEDIA) : 0;
        for (int i = 0; i < n; i++) {
            String url = form.get("MediaUrl" + i);
            Optional<String> ref = mediaRef.apply(url);
            if (ref.isEmpty()) {
                notes.add("message " + sid + ": media " + i + " is not a media URL of this account on api_base's host; not fetched");
                continue;
            }
            String type = form.get("MediaContentType" + i).toLowerCase(Locale.ROOT).strip();
            String mime = type.matches("[a-z0-9.+-]{1,64}/[a-z0-9.+-]{1,128}") ? type : null;
            media.add(new MessageEvent.MediaRef(kind(mime), ref.get(), mime));
        }
        if (body.isBlank() && media.isEmpty()) {
            return new Read(null, "message " + sid + " from " + from + " with nothing in it", notes);
        }
        SessionSource source = new SessionSource(SmsAdapter.PLATFORM, from, ChatType.DM, from, null, null, null);
        MessageEvent event = new MessageEvent(EventIds.next(), source, body, sid, null, media, MessageEvent.Origin.USER, now);
        return new Read(new Inbound(event, from, clip(form.get("To")), body), null, notes);
    }

    private static String kind(String mime) {
        if (mime == null) {
            return "document";
        }
        if (mime.startsWith("image/")) {
            return "photo";
        }
        if (mime.startsWith("audio/")) {
            return "audio";
        }
        return mime.startsWith("video/") ? "video" : "document";
    }

    private static String clip(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", " ");
        return clean.length() > 40 ? clean.substring(0, 40) + "..." : clean;
    }
}
