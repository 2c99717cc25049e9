package dev.herald.agent.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Paths as an approval question shows them: absolute, with the real location when symbolic links lead elsewhere. */
final class Paths {
    private Paths() {
    }

    /** {@code /abs/path (outside the workspace /ws)}, plus {@code , really /target} when a link moves it. */
    static String shown(ToolContext context, Path resolved) {
        String real = realPath(resolved);
        return resolved + (real.equals(resolved.toString()) ? "" : " (a link to " + real + ")")
                + (context.insideWorkspace(resolved) ? "" : " (outside the workspace " + context.workspace() + ")");
    }

    /** The real path of the longest existing prefix, the rest appended. */
    private static String realPath(Path path) {
        Path existing = path;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return path.toString();
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(path)).normalize().toString();
        } catch (IOException e) {
            return path.toString();
        }
    }
}
