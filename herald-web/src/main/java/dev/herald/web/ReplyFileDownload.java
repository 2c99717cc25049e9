package dev.herald.web;

import dev.herald.core.platform.OutboundFile;
import dev.herald.core.platform.Platform;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.TurnStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A file the agent sent to a web chat or API conversation ({@code send_file}), served from the turn that sent it: the
 * link names the turn and the file's place in its reply ({@link OutboundFile#replyRef}), never a path, so nothing a
 * client writes can point at another file. The file is read from the path the tool checked, without following a link at
 * any step ({@link OutboundFile#present}); one deleted or replaced by a link since is answered 410.
 *
 * <p>A download cannot run anything in Herald's origin: every file is {@code attachment} except PNG, JPEG, GIF and WebP
 * images (shown inline), with {@code nosniff} and a sandboxing content security policy.
 */
public final class ReplyFileDownload {
    /** What a lookup found: the file, or the status and text to answer. */
    public sealed interface Found permits Found.File, Found.Missing {
        record File(OutboundFile file) implements Found {
        }

        record Missing(int status, String message) implements Found {
        }
    }

    private ReplyFileDownload() {
    }

    /** File {@code index} of turn {@code turnId}'s reply, when that turn came from {@code platform}. */
    public static Found find(TurnStore turns, Platform platform, long turnId, int index) {
        Optional<TurnRecord> turn = turns.find(turnId);
        return found(turn.filter(t -> t.source().platform().equals(platform) && index >= 0 && index < t.replyFiles().size())
                .map(t -> t.replyFiles().get(index)));
    }

    /** What to answer for a file looked up (empty: the link names none). */
    public static Found found(Optional<OutboundFile> file) {
        if (file.isEmpty()) {
            return new Found.Missing(404, "no such file: the link names no file this conversation was sent");
        }
        if (!file.get().present()) {
            return new Found.Missing(410, "the file " + file.get().name() + " is no longer in the conversation's workspace");
        }
        return new Found.File(file.get());
    }

    /** Streams {@code file} as the response, with the headers above. */
    public static void write(Context ctx, OutboundFile file) throws IOException {
        Path path = Path.of(file.path());
        boolean inline = file.isImage();
        ctx.status(200);
        ctx.header("Content-Type", inline ? file.mimeType() : "application/octet-stream");
        ctx.header("Content-Disposition", (inline ? "inline" : "attachment") + "; filename=\"" + asciiName(file.name())
                + "\"; filename*=UTF-8''" + URLEncoder.encode(file.name(), StandardCharsets.UTF_8).replace("+", "%20"));
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'");
        ctx.header("Cache-Control", "private, no-store");
        long size = Files.size(path);
        ctx.header("Content-Length", Long.toString(size));
        try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
            in.transferTo(ctx.res().getOutputStream());
        }
    }

    /** The name for the plain {@code filename} parameter: ASCII letters, digits and {@code . _ -}, the rest {@code _}. */
    static String asciiName(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            b.append(c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-') ? c : '_');
        }
        return b.isEmpty() ? "file" : b.toString();
    }

    /** The turn and index of a link's last two path segments ({@code <turn>/<index>}), or empty when they are not numbers. */
    public static Optional<long[]> parse(String turn, String index) {
        if (turn == null || index == null || !turn.matches("[1-9][0-9]{0,17}") || !index.matches("[0-9]{1,4}")) {
            return Optional.empty();
        }
        return Optional.of(new long[] {Long.parseLong(turn), Long.parseLong(index)});
    }
}
