package dev.herald.platforms.signal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import java.io.IOException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Attachments both ways through the daemon, so Herald and signal-cli need not share a file system: a received
 * attachment's bytes come from {@code getAttachment} ({@code id} plus the sender as {@code recipient} or the group as
 * {@code groupId}; the result's {@code data} is base64), and a file sent goes in {@code send}'s {@code attachments} as a
 * data URI {@code data:<type>;filename=<name>;base64,<bytes>} (RFC 2397 with signal-cli's file-name parameter).
 */
final class SignalMedia implements MediaFetcher {
    private static final Pattern REF = Pattern.compile("([A-Za-z0-9_-][A-Za-z0-9._-]{0,127})\\|([A-Za-z0-9+/=:-]{1,100})");

    private final SignalRpc rpc;

    SignalMedia(SignalRpc rpc) {
        this.rpc = rpc;
    }

    /** The reference of attachment {@code id} received in {@code chat} (a group id, or the sender's UUID or number). */
    static String ref(String id, String chat) {
        return id + "|" + chat;
    }

    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long maxBytes) throws IOException {
        java.util.regex.Matcher m = REF.matcher(ref.ref());
        if (!m.matches()) {
            throw new IOException("signal - not an attachment reference this platform made");
        }
        if (ref.size() > maxBytes) {
            throw new IOException("signal - the attachment is " + ref.size() + " bytes, over the " + maxBytes + "-byte limit");
        }
        String chat = m.group(2);
        ObjectNode params = rpc.params().put("id", m.group(1));
        if (SignalEnvelopes.isGroup(chat)) {
            params.put("groupId", chat);
        } else {
            params.put("recipient", chat);
        }
        SignalRpc.Answer a;
        try {
            a = rpc.call("getAttachment", params);
        } catch (IOException e) {
            throw new IOException("signal - getAttachment: " + rpc.describe(e));
        }
        if (!a.ok()) {
            throw new IOException("signal - getAttachment failed (error " + a.code() + "); signal-cli may not have downloaded it "
                    + "(a daemon started with --ignore-attachments keeps none)");
        }
        JsonNode data = a.result().path("data");
        if (!data.isTextual()) {
            throw new IOException("signal - getAttachment answered without data");
        }
        String base64 = data.asText();
        if ((long) base64.length() / 4 * 3 > maxBytes + 3) {
            throw new IOException("signal - the attachment is over the " + maxBytes + "-byte limit");
        }
        byte[] bytes;
        try {
            bytes = Base64.getMimeDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IOException("signal - getAttachment answered data that is not base64");
        }
        if (bytes.length > maxBytes) {
            throw new IOException("signal - the attachment is over the " + maxBytes + "-byte limit");
        }
        return new Fetched(bytes, ref.mimeType());
    }

    /** A file as signal-cli's data URI; characters that would break the URI's parameters are left out of the name. */
    static String dataUri(String mimeType, String name, byte[] bytes) {
        String type = mimeType == null || !mimeType.matches("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+") ? "application/octet-stream" : mimeType;
        String safe = name == null ? "" : name.replaceAll("[;,/\\\\\\p{Cntrl}]", "_").strip();
        StringBuilder uri = new StringBuilder("data:").append(type);
        if (!safe.isEmpty()) {
            uri.append(";filename=").append(safe);
        }
        return uri.append(";base64,").append(Base64.getEncoder().encodeToString(bytes)).toString();
    }
}
