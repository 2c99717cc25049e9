package dev.herald.spec;

import dev.herald.core.session.SessionSource;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every gateway spec test shares: a temporary Herald home, the harness a test builds in it, and
 * alice, the authorized Telegram user most cases talk as. The harness checks its invariants when closed.
 */
abstract class GatewaySpec {
    @TempDir
    Path dir;
    Harness h;
    final SessionSource alice = Harness.dm("telegram", "123456", "u1");

    @AfterEach
    void closeHarness() {
        if (h != null) {
            h.close();
        }
    }
}
