package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.actuate.DurableTimerEndpointContributor.DurableDescriptor;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;

/** The endpoint's {@code "durable"} section can be written by Jackson in a native image. */
class DurableTimerEndpointRuntimeHintsTest {

    @Test
    void theSectionIsBound() {
        RuntimeHints hints = new RuntimeHints();
        new DurableTimerEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());

        assertThat(RuntimeHintsPredicates.reflection().onType(DurableDescriptor.class))
                .accepts(hints);
        for (var component : DurableDescriptor.class.getRecordComponents()) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
                    .as(component.getName())
                    .accepts(hints);
        }
    }

    @Test
    void theSectionsConfigurationImportsThem() {
        ImportRuntimeHints imported = DurableTimerEndpointAutoConfiguration.EndpointConfiguration.class.getAnnotation(
                ImportRuntimeHints.class);

        assertThat(imported).isNotNull();
        assertThat(imported.value()).contains(DurableTimerEndpointRuntimeHints.class);
    }
}
