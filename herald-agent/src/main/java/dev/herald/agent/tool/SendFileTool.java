package dev.herald.agent.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.herald.core.platform.OutboundFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code send_file}: sends a file of the conversation's workspace to the chat with the reply, with an optional caption.
 * Only a regular file inside the workspace: a path outside it, or one that reaches outside through a symbolic link
 * (anywhere on the way), is refused, so the tool never reads what the file tools would have to ask for. The file is
 * recorded with the turn's reply and delivered after its text (the gateway's outbox: its intent recorded first,
 * retried, sent once); a file larger than the chat platform takes is replaced by a line saying so.
 */
public final class SendFileTool implements Tool {
    private static final JsonNode SCHEMA = Args.schema(new String[] {"path"},
            "path", "string", "the file to send; relative paths are inside the session's workspace, and only files there can be sent",
            "caption", "string", "optional: text shown with the file");
    private static final int MAX_CAPTION = 1000;

    @Override
    public String name() {
        return "send_file";
    }

    @Override
    public String description() {
        return "Send a file from the workspace to the user in this chat (an image shows as a photo, an OGG file as a voice note "
                + "where the chat has them, anything else as a document). It is delivered after your answer.";
    }

    @Override
    public JsonNode parameters() {
        return SCHEMA;
    }

    @Override
    public Danger danger(JsonNode args, ToolContext context) {
        return Danger.NONE; // a path outside the workspace is refused, never asked about
    }

    @Override
    public String summarize(JsonNode args) {
        return "send " + Texts.line(Args.string(args, "path", ""), 200);
    }

    @Override
    public ToolResult execute(JsonNode args, ToolContext context) {
        if (context.outgoing() == null) {
            return ToolResult.error("this conversation cannot receive files from the agent");
        }
        String given = Args.string(args, "path");
        Path path = context.resolve(given);
        if (!context.insideWorkspace(path)) {
            return ToolResult.error(given + " is outside the workspace; only files in " + context.workspace() + " can be sent");
        }
        try {
            Path real = path.toRealPath();
            if (!real.startsWith(context.workspace().toRealPath()) || !Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
                return ToolResult.error(given + " is not a regular file in the workspace");
            }
            long size = Files.size(real);
            String caption = Args.string(args, "caption", null);
            if (caption != null && caption.length() > MAX_CAPTION) {
                caption = caption.substring(0, MAX_CAPTION);
            }
            String type = typeOf(real);
            context.outgoing().accept(new OutboundFile(real.toString(), real.getFileName().toString(), type, size, caption));
            return ToolResult.ok("will send " + real.getFileName() + " (" + type + ", " + Texts.number(size)
                    + " bytes) after your answer");
        } catch (NoSuchFileException e) {
            return ToolResult.error(given + " does not exist");
        } catch (IOException e) {
            return ToolResult.error("could not send " + given + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    /** The type the bytes show for the kinds a chat treats apart (images, voice), else by extension, else a document. */
    static String typeOf(Path file) throws IOException {
        byte[] b;
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            b = in.readNBytes(12);
        }
        if (b.length >= 4 && (b[0] & 0xff) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
            return "image/png";
        }
        if (b.length >= 3 && (b[0] & 0xff) == 0xff && (b[1] & 0xff) == 0xd8 && (b[2] & 0xff) == 0xff) {
            return "image/jpeg";
        }
        if (b.length >= 4 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F' && b[3] == '8') {
            return "image/gif";
        }
        if (b.length >= 4 && b[0] == 'O' && b[1] == 'g' && b[2] == 'g' && b[3] == 'S') {
            return "audio/ogg";
        }
        if (b.length >= 5 && b[0] == '%' && b[1] == 'P' && b[2] == 'D' && b[3] == 'F') {
            return "application/pdf";
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".txt") || name.endsWith(".md") || name.endsWith(".csv") || name.endsWith(".log")) {
            return "text/plain";
        }
        return "application/octet-stream";
    }
}
