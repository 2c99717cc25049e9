package dev.herald.web.admin;

import dev.herald.core.gateway.Gateway;
import dev.herald.core.gateway.GatewayReads;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.transcript.TranscriptExport;
import dev.herald.core.transcript.TranscriptSession;
import dev.herald.web.Routes;
import dev.herald.web.WebJson.BadRequest;
import dev.herald.web.access.WebGuard;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;

/**
 * The admin page's transcript download: {@code GET /admin/api/export?key=KEY&format=markdown|jsonl} answers the
 * session's conversation as a file (its current transcript and the ones it continues after compression, oldest
 * first), in the format {@code herald export} writes. A read, guarded like every admin read.
 */
public final class ExportRoutes implements Routes {
    /** A compression chain longer than this is cut (a cycle in damaged data cannot loop forever). */
    private static final int MAX_ANCESTORS = 256;

    private final Gateway gateway;
    private final WebGuard guard;

    public ExportRoutes(Gateway gateway, WebGuard guard) {
        this.gateway = Objects.requireNonNull(gateway, "gateway");
        this.guard = Objects.requireNonNull(guard, "guard");
    }

    @Override
    public String name() {
        return "export";
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/admin/api/export", guard.read(this::export));
    }

    private void export(Context ctx) {
        String keyParam = ctx.queryParam("key");
        if (keyParam == null || keyParam.isBlank()) {
            throw new BadRequest(400, "key is required (a session key such as agent:main:webchat:dm:abc123)");
        }
        TranscriptExport.Format format;
        try {
            format = TranscriptExport.Format.parse(Optional.ofNullable(ctx.queryParam("format")).orElse("markdown"));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, e.getMessage());
        }
        SessionKey key;
        try {
            key = new SessionKey(keyParam);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(400, "key is not a valid session key: " + e.getMessage());
        }
        SessionEntry entry = gateway.reads().session(key)
                .orElseThrow(() -> new BadRequest(404, "no session with key '" + key + "'"));
        GatewayReads reads = gateway.reads();
        Deque<TranscriptSession> chain = new ArrayDeque<>();
        Optional<TranscriptSession> at = reads.transcriptSession(reads.transcriptTip(entry.sessionId()));
        while (at.isPresent() && chain.size() < MAX_ANCESTORS) {
            chain.addFirst(at.get());
            String parent = at.get().parentSessionId();
            at = parent == null ? Optional.empty() : reads.transcriptSession(parent);
        }
        StringBuilder body = new StringBuilder();
        try {
            if (format == TranscriptExport.Format.MARKDOWN) {
                body.append("# Herald conversation: ").append(key.value()).append("\n\n");
            }
            for (TranscriptSession s : chain) {
                TranscriptExport.write(format, s, reads.transcript(s.id()), body);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringBuilder does not fail
        }
        String file = "herald-" + key.value().replaceAll("[^A-Za-z0-9._-]+", "_") + "." + format.extension();
        ctx.header("Content-Disposition", "attachment; filename=\"" + file + "\"");
        ctx.header("Cache-Control", "no-store");
        ctx.contentType(format.mediaType() + "; charset=utf-8");
        ctx.result(body.toString());
    }
}
