package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

/** What the endpoints' runtime hints tests check of each answer: Jackson can write it in a native image. */
public final class AnswerHints {

    private AnswerHints() {}

    /** Asserts that each record in {@code answers} is bound for reflection, with every accessor of its components. */
    public static void assertBoundWithWhatTheyHold(RuntimeHints hints, Class<?>... answers) {
        for (Class<?> answer : answers) {
            assertThat(RuntimeHintsPredicates.reflection().onType(answer))
                    .as(answer.getName())
                    .accepts(hints);
            assertThat(answer.getRecordComponents())
                    .as(answer.getName() + " is a record")
                    .isNotNull();
            for (var component : answer.getRecordComponents()) {
                assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
                        .as(answer.getSimpleName() + "." + component.getName())
                        .accepts(hints);
            }
        }
    }
}
