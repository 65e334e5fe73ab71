package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

/** The fields behind the timer's VarHandles, registered for every application with the starter. */
class WheelTimerRuntimeHintsTest {

    @Test
    void everyVarHandleFieldIsRegistered() {
        RuntimeHints hints = new RuntimeHints();
        new WheelTimerRuntimeHints().registerHints(hints, getClass().getClassLoader());

        WheelTimerRuntimeHints.VAR_HANDLE_FIELDS.forEach((type, fields) -> fields.forEach(field -> {
            try {
                assertThat(RuntimeHintsPredicates.reflection().onFieldAccess(type, field))
                        .as(type + "." + field)
                        .accepts(hints);
            } catch (ClassNotFoundException e) {
                throw new AssertionError(type + " no longer exists", e);
            }
        }));
    }

    @Test
    void theRegistrarIsFoundInAotFactories() {
        assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
                .hasAtLeastOneElementOfType(WheelTimerRuntimeHints.class);
    }
}
