package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerTask;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@link DurableTimerTask @DurableTimerTask} methods of the context's beans, on the user's
 * class rather than the proxy's, and checks each: its parameters ({@code String key},
 * {@link DurableTimeout}, or {@code String key} and the data), {@code void}, a task name that is not blank, and one method per task
 * name. A mistake stops the application at startup with a message naming the methods.
 *
 * <p>The durable timer needs every handler when it is built, and a bean that handles a task often
 * also schedules it (so it is created after the timer). So when the timer asks for the
 * {@linkplain #handlers() handlers}, the beans not created yet are found by the type their definition
 * declares; each bean is then checked again as it is created, and one whose methods were not found
 * by then (a definition that hides its type) stops the startup, saying so.
 */
final class DurableTimerTaskBeanPostProcessor implements BeanPostProcessor, BeanFactoryAware {

    /** The longest task name: the width of the table's task column. */
    static final int MAX_TASK_NAME = 200;

    private final Map<String, Found> byTask = new LinkedHashMap<>();
    private ConfigurableListableBeanFactory beanFactory;
    /** Set once the timer took the handlers: a method found later could no longer be registered. */
    private boolean handedOut;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (!(beanFactory instanceof ConfigurableListableBeanFactory listable)) {
            throw new IllegalStateException(
                    "@DurableTimerTask needs a ConfigurableListableBeanFactory, got " + beanFactory);
        }
        this.beanFactory = listable;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> userClass = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
        Map<Method, DurableTimerTask> methods = annotatedMethods(userClass);
        for (Map.Entry<Method, DurableTimerTask> entry : methods.entrySet()) {
            register(check(beanName, userClass, entry.getKey(), entry.getValue()), true);
        }
        return bean;
    }

    /**
     * Every handler method of the context by task name: those of the beans created so far, and of the
     * others as their definitions declare them. After this call a bean created with a method not
     * listed here stops the startup.
     */
    synchronized Map<String, Found> handlers() {
        if (!handedOut) {
            for (String name : beanFactory.getBeanDefinitionNames()) {
                Class<?> userClass = declaredClass(name);
                if (userClass != null) {
                    annotatedMethods(userClass)
                            .forEach((method, annotation) ->
                                    register(check(name, userClass, method, annotation), false));
                }
            }
            handedOut = true;
        }
        return Collections.unmodifiableMap(new LinkedHashMap<>(byTask));
    }

    /** The class of a bean as its definition declares it, without creating anything; null if unknown. */
    private Class<?> declaredClass(String name) {
        try {
            if (beanFactory.getBeanDefinition(name).isAbstract()) {
                return null;
            }
            Class<?> type = beanFactory.getType(name, false);
            return type != null ? ClassUtils.getUserClass(type) : null;
        } catch (RuntimeException unresolvable) {
            return null; // a definition whose type cannot be told yet: checked when it is created
        }
    }

    private static Map<Method, DurableTimerTask> annotatedMethods(Class<?> userClass) {
        return MethodIntrospector.selectMethods(userClass, (MethodIntrospector.MetadataLookup<DurableTimerTask>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, DurableTimerTask.class));
    }

    private synchronized void register(Found found, boolean created) {
        Found known = byTask.get(found.task());
        if (known != null && known.sameAs(found)) {
            if (created) {
                byTask.put(found.task(), found); // the bean's own class: more precise than its declared type
            }
        } else if (known == null) {
            if (handedOut && created) {
                throw new IllegalStateException("@DurableTimerTask method " + found.description() + " of bean '"
                        + found.beanName() + "' was found only when the bean was created, after the durable timer"
                        + " was built, because the bean's definition does not declare its class; declare it (for"
                        + " example as the return type of its @Bean method) so that the timer knows task '"
                        + found.task() + "' from the start");
            }
            byTask.put(found.task(), found);
        } else {
            throw new IllegalStateException("Two @DurableTimerTask methods handle task '" + found.task() + "': "
                    + known.description() + " of bean '" + known.beanName() + "' and " + found.description()
                    + " of bean '" + found.beanName() + "'; one method handles each task name");
        }
    }

    /** Checks an annotated method, naming it in the error. */
    static Found check(String beanName, Class<?> userClass, Method method, DurableTimerTask annotation) {
        Method specific = AopUtils.getMostSpecificMethod(method, userClass);
        String description = DurableTaskMethod.describe(specific, userClass);
        String task = annotation.value();
        if (task.isBlank()) {
            throw new IllegalStateException("@DurableTimerTask on " + description + " has a blank task name;"
                    + " give the name of the task it handles, as passed to DurableTimer.schedule");
        }
        if (task.length() > MAX_TASK_NAME) {
            throw new IllegalStateException("@DurableTimerTask on " + description + " names a task of " + task.length()
                    + " characters; a task name has at most " + MAX_TASK_NAME);
        }
        Class<?>[] parameters = specific.getParameterTypes();
        boolean one =
                parameters.length == 1 && (parameters[0] == String.class || parameters[0] == DurableTimeout.class);
        boolean keyAndData = parameters.length == 2 && parameters[0] == String.class;
        if (!one && !keyAndData) {
            throw new IllegalStateException("@DurableTimerTask method " + description + " must take (String key),"
                    + " (DurableTimeout timeout), or (String key, T data) where T is String (the data as stored)"
                    + " or a type the timer's data codec reads");
        }
        if (specific.getReturnType() != void.class) {
            throw new IllegalStateException("@DurableTimerTask method " + description + " returns "
                    + specific.getReturnType().getName() + "; it must return void (a timeout's run has no caller"
                    + " to return to)");
        }
        return new Found(task, beanName, specific, description);
    }

    /** The handler method last found for {@code task}. */
    synchronized Found handler(String task) {
        return byTask.get(task);
    }

    /** A checked handler method of a bean. */
    record Found(String task, String beanName, Method method, String description) {

        /**
         * Whether both are the one method of one bean: found by the declared type (an interface,
         * maybe) and by the class, the same name and parameters.
         */
        boolean sameAs(Found other) {
            return beanName.equals(other.beanName)
                    && method.getName().equals(other.method.getName())
                    && Arrays.equals(method.getParameterTypes(), other.method.getParameterTypes());
        }
    }
}
