package dev.herald.core;

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

/** The core knows no HTTP, SQL driver or platform SDK, and no platform package; turn state has one writer. */
class ArchitectureTest {
    static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.herald.core");

    /** The store methods that write a turn: only {@link Turns} calls them. */
    public static final Set<String> TURN_WRITES = Set.of("receive", "transition", "interrupt", "recordSendIntent", "recordPartSent",
            "recordDeliveryFailure", "addUsage");

    /** A call of a {@link TurnStore} method that writes a turn. */
    public static final DescribedPredicate<JavaMethodCall> WRITES_A_TURN = DescribedPredicate.describe(
            "a TurnStore method that writes a turn " + TURN_WRITES,
            call -> call.getTargetOwner().isAssignableTo(TurnStore.class) && TURN_WRITES.contains(call.getName()));

    @Test
    void core_doesNotUseHttpSqlOrJson() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("java.net.http..", "java.sql..", "io.javalin..", "com.fasterxml..", "org.xerial..")
                .check(CORE);
    }

    @Test
    void core_doesNotDependOnOtherHeraldModules() {
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("dev.herald.store..", "dev.herald.agent..", "dev.herald.web..", "dev.herald.app..",
                        "dev.herald.platforms..")
                .check(CORE);
    }

    @Test
    void turnState_isWrittenOnlyByTheTurnOwner() {
        noClasses().that().doNotHaveFullyQualifiedName(Turns.class.getName())
                .should().callMethodWhere(WRITES_A_TURN)
                .because("turn.Turns is the one writer of turn state (invariant 8)")
                .check(CORE);
    }
}
