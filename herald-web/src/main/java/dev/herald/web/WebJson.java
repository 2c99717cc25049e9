package dev.herald.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;

/** JSON in and out for the web pages' endpoints: one mapper, one error shape ({@code {"error": "..."}}). */
public final class WebJson {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private WebJson() {
    }

    /** Writes {@code value} (a record, a map, a node) as the response with {@code status}. */
    public static void write(Context ctx, int status, Object value) {
        try {
            ctx.status(status).contentType("application/json").header("Cache-Control", "no-store")
                    .result(MAPPER.writeValueAsBytes(value));
        } catch (IOException e) {
            throw new UncheckedIOException("web - cannot write JSON", e);
        }
    }

    public static void error(Context ctx, int status, String message) {
        ObjectNode body = MAPPER.createObjectNode().put("error", message);
        write(ctx, status, body);
    }

    public static byte[] bytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("web - cannot write JSON", e);
        }
    }

    /** The request body as a JSON object; a {@link BadRequest} when it is not one. */
    public static JsonNode body(Context ctx) {
        byte[] raw = ctx.bodyAsBytes();
        if (raw.length > 256 * 1024) {
            throw new BadRequest(413, "the request body is too large (" + raw.length + " bytes; the limit is 262144)");
        }
        try {
            JsonNode node = MAPPER.readTree(raw);
            if (node == null || !node.isObject()) {
                throw new BadRequest(400, "the request body must be a JSON object");
            }
            return node;
        } catch (IOException e) {
            throw new BadRequest(400, "the request body is not valid JSON (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** A client error with its status; handlers let it propagate to their guard, which answers it. */
    public static final class BadRequest extends RuntimeException {
        private final int status;

        public BadRequest(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
