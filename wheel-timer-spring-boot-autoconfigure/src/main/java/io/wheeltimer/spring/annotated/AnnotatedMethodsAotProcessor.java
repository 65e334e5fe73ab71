package io.wheeltimer.spring.annotated;

import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Ahead of time, for every bean: invoke hints for its methods that carry {@link WheelTimeout
 * @WheelTimeout}, {@link WheelTimeLimit @WheelTimeLimit} or {@code @DurableTimerTask} (when
 * {@code wheel-timer-jdbc} is there), which the timer's proxies and the durable timer call by
 * reflection, also as the bean's interfaces declare them (a JDK proxy calls those); and for a
 * {@code @DurableTimerTask} method, binding hints for the types of the data it takes besides the key
 * (read from JSON), so that a native image can call it and build its argument.
 */
final class AnnotatedMethodsAotProcessor implements BeanRegistrationAotProcessor {

    static final String DURABLE_TIMER_TASK = "io.wheeltimer.jdbc.DurableTimerTask";
    private static final String DURABLE_TIMEOUT = "io.wheeltimer.jdbc.DurableTimeout";

    private final List<Class<? extends Annotation>> annotationTypes;
    private final Class<? extends Annotation> durableTimerTask;

    AnnotatedMethodsAotProcessor() {
        this(AnnotatedMethodsAotProcessor.class.getClassLoader());
    }

    AnnotatedMethodsAotProcessor(ClassLoader classLoader) {
        this.durableTimerTask = ClassUtils.isPresent(DURABLE_TIMER_TASK, classLoader)
                ? annotationType(ClassUtils.resolveClassName(DURABLE_TIMER_TASK, classLoader))
                : null;
        List<Class<? extends Annotation>> types = new ArrayList<>(List.of(WheelTimeout.class, WheelTimeLimit.class));
        if (durableTimerTask != null) {
            types.add(durableTimerTask);
        }
        this.annotationTypes = List.copyOf(types);
    }

    /** The method annotations whose methods get hints: ours that target methods. */
    List<Class<? extends Annotation>> annotationTypes() {
        return annotationTypes;
    }

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> userClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Map<Method, Class<? extends Annotation>> methods = annotatedMethods(userClass);
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) ->
                register(generationContext.getRuntimeHints().reflection(), methods);
    }

    private Map<Method, Class<? extends Annotation>> annotatedMethods(Class<?> userClass) {
        Map<Method, Class<? extends Annotation>> found = new LinkedHashMap<>();
        for (Class<? extends Annotation> type : annotationTypes) {
            MethodIntrospector.selectMethods(userClass, (ReflectionUtils.MethodFilter)
                            method -> AnnotatedElementUtils.hasAnnotation(method, type))
                    .forEach(method -> found.putIfAbsent(method, type));
        }
        return found;
    }

    private void register(ReflectionHints reflection, Map<Method, Class<? extends Annotation>> methods) {
        methods.forEach((method, type) -> {
            for (Method invocable : withInterfaceMethods(method)) {
                reflection.registerMethod(invocable, ExecutableMode.INVOKE);
            }
            if (type == durableTimerTask) {
                registerData(reflection, method);
            }
        });
    }

    /** The method, and the same method as each interface of its class declares it. */
    private static Set<Method> withInterfaceMethods(Method method) {
        Set<Method> methods = new LinkedHashSet<>();
        methods.add(method);
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(method.getDeclaringClass())) {
            Method declared = ReflectionUtils.findMethod(type, method.getName(), method.getParameterTypes());
            if (declared != null) {
                methods.add(declared);
            }
        }
        return methods;
    }

    /** Binding hints for what the handler takes besides its key ({@code String}) or its {@code DurableTimeout}. */
    private static void registerData(ReflectionHints reflection, Method method) {
        Class<?>[] raw = method.getParameterTypes();
        Type[] generic = method.getGenericParameterTypes();
        BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] != String.class
                    && !raw[i].isPrimitive()
                    && !raw[i].getName().equals(DURABLE_TIMEOUT)) {
                binding.registerReflectionHints(reflection, generic[i]);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Class<? extends Annotation> annotationType(Class<?> type) {
        return (Class<? extends Annotation>) type;
    }
}
