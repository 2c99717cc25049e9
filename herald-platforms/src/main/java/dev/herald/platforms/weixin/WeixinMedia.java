package dev.herald.platforms.weixin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.herald.core.platform.MediaFetcher;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.OutboundFile;
import dev.herald.platforms.common.JsonHttp;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Weixin media both ways.
 *
 * <p>In: each media item of a message is downloaded from the CDN and decrypted while the message is taken, so a file that
 * is over {@code max_file_bytes} or cannot be decrypted is refused at once and the message's text says so; a file that
 * arrived is handed to the core as an attachment named {@code weixin-media:<slot>:<id>}. What fetching it again needs (its
 * CDN parameter and key) is kept in the platform state under that slot, never in the reference, so keys stay out of
 * transcripts; the decrypted bytes of the latest files are also kept in memory for the turn that follows.
 *
 * <p>Out: a file is encrypted under a fresh key, {@code getuploadurl} names where to put it, the CDN takes the ciphertext,
 * and {@code sendmessage} sends an image (type 2), video (5) or file (4) item naming it.
 */
final class WeixinMedia implements MediaFetcher {
    static final String PREFIX = "weixin-media:";
    private static final Pattern REF = Pattern.compile(Pattern.quote(PREFIX) + "([0-9]{1,4}):([0-9a-f]{16})");
    private static final long CACHE_BYTES = 32L * 1024 * 1024;

    private final ILinkApi api;
    private final WeixinCdn cdn;
    private final WeixinState state;
    private final long maxBytes;
    private final Map<String, byte[]> recent = new LinkedHashMap<>(16, 0.75f, true);
    private long recentBytes;

    WeixinMedia(ILinkApi api, WeixinCdn cdn, WeixinState state, long maxBytes) {
        this.api = api;
        this.cdn = cdn;
        this.state = state;
        this.maxBytes = maxBytes;
    }

    /**
     * Downloads and decrypts {@code item} and returns the attachment naming it.
     *
     * @throws IOException why it was refused, for the chat: "it is over the ...-byte limit", "it could not be decrypted ..."
     */
    MessageEvent.MediaRef receive(WeixinMessages.MediaItem item) throws IOException {
        byte[] key = check(item);
        byte[] bytes = cdn.fetch(item.param(), key, maxBytes);
        String mime = mimeType(item.kind(), item.name(), bytes);
        String id = HexFormat.of().formatHex(cdn.newKey(), 0, 8);
        ObjectNode record = JsonHttp.JSON.createObjectNode().put("id", id).put("param", item.param())
                .put("key", HexFormat.of().formatHex(key)).put("mime", mime);
        int slot = state.rememberMedia(record.toString());
        String ref = PREFIX + slot + ":" + id;
        remember(ref, bytes);
        return new MessageEvent.MediaRef(item.kind(), ref, mime, item.name(), bytes.length);
    }

    /**
     * The attachment naming {@code item} without downloading it (a sender not on the allowlist, whom the gateway may still
     * refuse): the key and the declared size are checked now, the bytes when the turn fetches them.
     */
    MessageEvent.MediaRef refer(WeixinMessages.MediaItem item) throws IOException {
        byte[] key = check(item);
        if (item.param() == null) {
            throw new IOException("it names no CDN download parameter");
        }
        String id = HexFormat.of().formatHex(cdn.newKey(), 0, 8);
        ObjectNode record = JsonHttp.JSON.createObjectNode().put("id", id).put("param", item.param()).put("key", HexFormat.of().formatHex(key));
        int slot = state.rememberMedia(record.toString());
        return new MessageEvent.MediaRef(item.kind(), PREFIX + slot + ":" + id, mimeType(item.kind(), item.name(), new byte[0]), item.name(),
                item.declaredSize());
    }

    /** The item's key, once its declared size is within the cap. */
    private byte[] check(WeixinMessages.MediaItem item) throws IOException {
        if (item.declaredSize() > maxBytes) {
            throw new IOException("it is " + OutboundFile.size(item.declaredSize()) + ", over the " + maxBytes
                    + "-byte limit (platforms.weixin.max_file_bytes)");
        }
        return WeixinCdn.key(item.hexKey(), item.aesKey());
    }

    @Override
    public Fetched fetch(MessageEvent.MediaRef ref, long limit) throws IOException {
        Matcher m = REF.matcher(ref.ref());
        if (!m.matches()) {
            throw new IOException("weixin - " + ref.kind() + " is not a Weixin media reference");
        }
        byte[] kept;
        synchronized (this) {
            kept = recent.get(ref.ref());
        }
        if (kept == null) {
            String stored = state.media(Integer.parseInt(m.group(1)));
            JsonNode record = stored == null ? null : JsonHttp.JSON.readTree(stored);
            if (record == null || !m.group(2).equals(record.path("id").asText())) {
                throw new IOException("weixin - the " + ref.kind() + " is no longer known (only the latest " + WeixinState.MEDIA_SLOTS
                        + " received files can be fetched again)");
            }
            try {
                kept = cdn.fetch(record.path("param").asText(), WeixinCdn.key(record.path("key").asText(), null), Math.min(limit, maxBytes));
            } catch (IOException e) {
                throw new IOException("weixin - the " + ref.kind() + " could not be fetched again: " + e.getMessage());
            }
        }
        if (kept.length > limit) {
            throw new IOException("weixin - the " + ref.kind() + " is " + kept.length + " bytes, over the " + limit + "-byte limit");
        }
        return new Fetched(kept, ref.mimeType());
    }

    /**
     * Uploads {@code f} ({@code bytes}) for {@code chat} and sends it as one item.
     *
     * @throws IOException naming the step that failed
     */
    ILinkApi.Answer send(String chat, OutboundFile f, byte[] bytes, String contextToken) throws IOException {
        String mime = f.mimeType().toLowerCase(Locale.ROOT);
        int itemType = f.isImage() ? 2 : mime.startsWith("video/") ? 5 : 4;
        int mediaType = itemType == 2 ? 1 : itemType == 5 ? 2 : 3;
        byte[] key = cdn.newKey();
        byte[] cipher = WeixinCdn.encrypt(bytes, key);
        String fileKey = cdn.newFileKey();
        ILinkApi.Answer up = api.getUploadUrl(fileKey, mediaType, chat, bytes.length, md5(bytes), cipher.length, HexFormat.of().formatHex(key));
        if (!up.ok()) {
            return up;
        }
        String param = cdn.upload(text(up.body().path("upload_param")), text(up.body().path("upload_full_url")), fileKey, cipher);
        Map<String, Object> media = Map.of("encrypt_query_param", param, "aes_key", WeixinCdn.itemKey(key), "encrypt_type", 1);
        Map<String, Object> item = switch (itemType) {
            case 2 -> Map.of("type", 2, "image_item", Map.of("media", media, "mid_size", cipher.length));
            case 5 -> Map.of("type", 5, "video_item", Map.of("media", media, "video_size", cipher.length));
            default -> Map.of("type", 4, "file_item", Map.of("media", media, "file_name", f.name(), "len", Integer.toString(bytes.length),
                    "md5", md5(bytes)));
        };
        return api.sendItem(chat, item, contextToken);
    }

    private static String text(JsonNode n) {
        return n.isTextual() ? n.asText() : null;
    }

    private synchronized void remember(String ref, byte[] bytes) {
        if (bytes.length > CACHE_BYTES / 4) {
            return;
        }
        recent.put(ref, bytes);
        recentBytes += bytes.length;
        var it = recent.entrySet().iterator();
        while (recentBytes > CACHE_BYTES && it.hasNext()) {
            recentBytes -= it.next().getValue().length;
            it.remove();
        }
    }

    static String md5(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes)); // the protocol's checksum, not security
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The media type the bytes show, else one from the kind and the file name's extension. */
    static String mimeType(String kind, String name, byte[] b) {
        if (b.length >= 3 && (b[0] & 0xff) == 0xff && (b[1] & 0xff) == 0xd8 && (b[2] & 0xff) == 0xff) {
            return "image/jpeg";
        }
        if (b.length >= 8 && (b[0] & 0xff) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
            return "image/png";
        }
        if (b.length >= 4 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F' && b[3] == '8') {
            return "image/gif";
        }
        if (b.length >= 12 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'E' && b[10] == 'B') {
            return "image/webp";
        }
        String audio = dev.herald.core.platform.AudioTypes.sniff(b).orElse(null);
        if (audio != null && !kind.equals("video")) {
            return audio;
        }
        String head = new String(b, 0, Math.min(b.length, 12), java.nio.charset.StandardCharsets.ISO_8859_1);
        if (head.contains("#!SILK")) {
            return "audio/silk";
        }
        String ext = name == null || name.lastIndexOf('.') < 0 ? "" : name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return switch (kind) {
            case "image" -> "image/jpeg";
            case "voice" -> "audio/silk";
            case "video" -> "video/mp4";
            default -> switch (ext) {
                case "pdf" -> "application/pdf";
                case "txt", "md", "log" -> "text/plain";
                case "csv" -> "text/csv";
                case "json" -> "application/json";
                case "zip" -> "application/zip";
                case "doc" -> "application/msword";
                case "docx" -> "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
                case "xlsx" -> "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
                case "pptx" -> "application/vnd.openxmlformats-officedocument.presentationml.presentation";
                case "mp4" -> "video/mp4";
                case "mp3" -> "audio/mpeg";
                default -> "application/octet-stream";
            };
        };
    }
}
