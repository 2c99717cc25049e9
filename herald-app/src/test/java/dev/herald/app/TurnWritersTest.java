package dev.herald.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.herald.core.turn.TurnStore;
import dev.herald.core.turn.Turns;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Across every module Herald ships (this one depends on all of them): nothing but {@code turn.Turns} writes a
 * turn's state or record (invariant 8). Tests may drive the store directly; shipped code may not.
 */
class TurnWritersTest {
    static final Set<String> WRITES = Set.of("receive", "transition", "interrupt", "recordSendIntent", "recordPartSent", "recordDeliveryFailure",
            "addUsage");

    @Test
    void turnState_isWrittenOnlyByTheTurnOwner_inEveryShippedModule() {
        JavaClasses shipped = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar")) // herald-store's contract suites
                .importPackages("dev.herald");
        noClasses().that().doNotHaveFullyQualifiedName(Turns.class.getName())
                .should().callMethodWhere(DescribedPredicate.<JavaMethodCall>describe("a TurnStore method that writes a turn " + WRITES,
                        call -> call.getTargetOwner().isAssignableTo(TurnStore.class) && WRITES.contains(call.getName())))
                .check(shipped);
    }
}
