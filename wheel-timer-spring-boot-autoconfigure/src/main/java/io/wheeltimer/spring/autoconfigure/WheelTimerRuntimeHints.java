package io.wheeltimer.spring.autoconfigure;

import java.util.List;
import java.util.Map;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * The fields the timer reaches through {@code MethodHandles.Lookup.findVarHandle} (its timeouts' state
 * and links, the {@code @WheelTimeout} runs' state): a native image sees such a lookup when its
 * arguments are constants, as they are; registered here too, so that it need not. Registered in
 * {@code META-INF/spring/aot.factories}: the timer is there whenever the starter is.
 */
final class WheelTimerRuntimeHints implements RuntimeHintsRegistrar {

    /** Each class by name (they are not public) with its fields behind a {@code VarHandle}. */
    static final Map<String, List<String>> VAR_HANDLE_FIELDS = Map.of(
            "io.wheeltimer.TimeoutHandle", List.of("state", "link"),
            "io.wheeltimer.TimeoutStack", List.of("top"),
            "io.wheeltimer.spring.ScheduledRun", List.of("state", "due"));

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        VAR_HANDLE_FIELDS.forEach((type, fields) -> hints.reflection().registerType(TypeReference.of(type), hint -> {
            fields.forEach(hint::withField);
        }));
    }
}
