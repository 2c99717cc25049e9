package dev.herald.web.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.agent.ImagePart;
import java.util.Base64;
import java.util.Locale;

/**
 * Images an API client sends inline. Only {@code data:} URLs are taken: an {@code http(s)} URL from a client is
 * outside input that Herald would have to fetch, and the API does not fetch on a client's behalf (see
 * docs/design-decisions.md). The bytes are checked to really be an image and to fit the size limit.
 */
final class DataUrls {
    private DataUrls() {
    }

    /** The image of a {@code data:image/...;base64,...} URL; anything else is a 400 naming {@code param}. */
    static ImagePart image(JsonNode url, String param, long maxBytes) {
        String text = url == null || !url.isTextual() ? null : url.asText();
        if (text == null || text.isBlank()) {
            throw ApiError.badRequest(param + " needs a 'url' (a data: URL such as data:image/png;base64,...)", param);
        }
        String lower = text.substring(0, Math.min(text.length(), 16)).toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            throw ApiError.badRequest(param + ": image URLs are not fetched by Herald; send the image inline as a data: URL "
                    + "(data:image/png;base64,...)", param);
        }
        int comma = text.indexOf(',');
        if (!lower.startsWith("data:") || comma < 0 || !text.substring(0, comma).toLowerCase(Locale.ROOT).endsWith(";base64")) {
            throw ApiError.badRequest(param + " must be a base64 data: URL such as data:image/png;base64,... (was '"
                    + ChatRequest.shorten(text.substring(0, Math.min(text.length(), 40))) + "')", param);
        }
        String payload = text.substring(comma + 1).replaceAll("\\s", "");
        long approx = payload.length() / 4L * 3;
        if (approx > maxBytes + 3) {
            throw ApiError.badRequest(param + ": the image is about " + String.format(Locale.ROOT, "%,d", approx) + " bytes, over the "
                    + String.format(Locale.ROOT, "%,d", maxBytes) + "-byte limit (model.max_image_bytes); send a smaller one", param);
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(payload);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(param + ": the data: URL is not valid base64 (" + ChatRequest.shorten(e.getMessage()) + ")", param);
        }
        if (bytes.length > maxBytes) {
            throw ApiError.badRequest(param + ": the image is " + String.format(Locale.ROOT, "%,d", bytes.length) + " bytes, over the "
                    + String.format(Locale.ROOT, "%,d", maxBytes) + "-byte limit (model.max_image_bytes); send a smaller one", param);
        }
        String type = ImagePart.sniff(bytes).orElseThrow(() -> ApiError.badRequest(param
                + ": the data is not a PNG, JPEG, GIF or WebP image", param));
        return new ImagePart(type, Base64.getEncoder().encodeToString(bytes));
    }
}
