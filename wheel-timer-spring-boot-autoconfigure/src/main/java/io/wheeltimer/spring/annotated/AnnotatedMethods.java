package io.wheeltimer.spring.annotated;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.stream.Collectors;

/** What {@code @WheelTimeout} and {@code @WheelTimeLimit} both need to know of an annotated method. */
final class AnnotatedMethods {

    private static final int NOT_PROXYABLE = Modifier.STATIC | Modifier.PRIVATE | Modifier.FINAL;

    private AnnotatedMethods() {}

    /**
     * The method as tasks, logs and errors name it: the user's class (not the proxy's), the method
     * and its simple parameter type names, e.g. {@code com.example.Orders.cancel(String)}; never
     * argument values.
     */
    static String describe(Method method, Class<?> userClass) {
        return userClass.getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /**
     * A proxy cannot intercept a static, private or final method: a call would silently run as if
     * the annotation were not there, so it fails startup instead.
     *
     * @param annotation the annotation's name, for the message, e.g. {@code @WheelTimeout}
     * @param what what the proxy does to the call, for the message, e.g. {@code defer}
     */
    static void checkProxyable(Method method, String description, String annotation, String what) {
        int modifiers = method.getModifiers();
        if ((modifiers & NOT_PROXYABLE) != 0) {
            throw new InvalidWheelAnnotationException(
                    annotation,
                    description,
                    "the method is " + Modifier.toString(modifiers & NOT_PROXYABLE),
                    "a proxy can only " + what + " calls to non-static, non-private, non-final methods",
                    "Make " + description + " a non-static, non-private, non-final method, or remove " + annotation
                            + ".");
        }
    }
}
