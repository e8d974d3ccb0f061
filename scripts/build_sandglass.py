"""Build the bundled Sandglass set from the bundled InstTrans subtitle rows.

    python -m scripts.build_sandglass           # write data/sandglass/test.jsonl and example_predictions.jsonl
    python -m scripts.build_sandglass --check   # exit 1 when the files on disk differ from a rebuild

Each entry of LINES names one line of an InstTrans subtitle row (its case_id and line key) and the
Chinese text the line must still have. The line's duration comes from the row's `duration_s`, its
neighbours become up/down context, and every line yields 4 languages x 3 length targets. The
English labels (one per target, written to the budget) and the example predictions (a plausibly
imperfect system: some lines controlled, some flat, under or over budget, five missing) were
written by the harness team for this file. A string instead of a list of three predictions means
the system gave the same answer for all three targets. Everything is deterministic: the uuid is a
UUIDv5 of the row and line, and the row order is LINES x (en ja es ar) x (short natural long).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from eval.io.data import file_sha256
from eval.sandglass.rows import SPEECH_RATES, TARGET_KINDS, render_messages, target_syllables, validate_sandglass_rows

SOURCES = (ROOT / "data" / "test.jsonl", ROOT / "data" / "parts" / "subtitle.jsonl")
OUT_DIR = ROOT / "data" / "sandglass"
DATA_PATH = OUT_DIR / "test.jsonl"
PREDICTIONS_PATH = OUT_DIR / "example_predictions.jsonl"
UUID_NAMESPACE = uuid.UUID("6f1c1f5e-9b7a-5d8e-a3f1-2c4b5d6e7f80")

LINES = [
    {
        "row": "itb-subtitle-020", "line": "1", "text": "你的灵力还不够，别硬撑！", "fenqu": "二次元",
        "summary": "仙侠动画片段：少女和师兄联手对付妖兽，两人为谁来冒险争执起来。",
        "label": {
            "short": "Your spirit power isn't enough. Don't force it!",
            "natural": "Your spirit power still isn't strong enough, so don't force yourself!",
            "long": "Listen, your spirit power still isn't strong enough yet, so please don't force yourself!",
        },
        "predictions": {
            "en": ["Your power's too weak. Don't push it!",
                   "Your spirit power isn't strong enough yet, don't force it!",
                   "Your spiritual power still isn't strong enough, so please don't push yourself too hard!"],
            "ja": ["霊力が足りない、無理するな！",
                   "お前の霊力じゃまだ足りない、無理をするな！",
                   "お前の霊力はまだ全然足りていないんだ、だから絶対に無理をするな！"],
            "es": "¡Tu poder espiritual aún no es suficiente, no te esfuerces!",
            "ar": ["قوتك الروحية لا تكفي، لا تجهد نفسك!",
                   "قوتك الروحية ما زالت غير كافية، فلا تجهد نفسك!",
                   "اسمعي، قوتك الروحية ما زالت غير كافية أبدًا، فلا تجهدي نفسك أكثر من طاقتك!"],
        },
    },
    {
        "row": "itb-subtitle-037", "line": "2", "text": "转学生今天就要来我们班了。", "fenqu": "二次元",
        "summary": "校园动画片段：早自习前，两个女生在教室里议论即将到来的转学生。",
        "label": {
            "short": "A new transfer student joins our class today.",
            "natural": "Apparently a new transfer student joins our class today.",
            "long": "I heard a new transfer student is going to be joining our class today.",
        },
        "predictions": {
            "en": ["A transfer student joins our class today.",
                   "A new transfer student is joining our class today.",
                   "I heard a new transfer student is going to join our class today."],
            "ja": ["転校生、今日来るって。",
                   "今日、転校生がうちのクラスに来るんだって。",
                   "ねえ、今日転校生がうちのクラスに来るんだって。"],
            "es": ["Hoy llega un alumno nuevo a clase.",
                   "Hoy llega un estudiante nuevo a nuestra clase.",
                   "Dicen que hoy mismo llega un estudiante nuevo a nuestra clase."],
            "ar": "سينضم طالب جديد إلى صفنا اليوم.",
        },
    },
    {
        "row": "itb-subtitle-048", "line": "3", "text": "不、不是那个意思！只是做多了而已！", "fenqu": "二次元",
        "summary": "校园恋爱动画片段：情人节放学后，学妹把巧克力塞给前辈，又慌忙解释。",
        "label": {
            "short": "N-no, that's not it at all! I just made way too many!",
            "natural": "N-no, no, that's not what I meant at all! I just made way too many, that's all!",
            "long": "N-no, that's not what I meant at all! I just ended up making too many of them, that's all!",
        },
        "predictions": {
            "en": ["N-no, it's not like that! I just made too many!",
                   "N-no, it's not like that! I just made too many, that's all!",
                   "N-no, it's not like that! I just made too many, that's all!"],
            "ja": ["ち、違います！作りすぎただけです！",
                   "ち、違います！そういう意味じゃなくて、作りすぎただけです！",
                   None],
            "es": ["¡N-no, no es eso! ¡Es que hice demasiados!",
                   "¡N-no, no es lo que piensas! ¡Solo hice demasiados, nada más!",
                   "¡N-no, no es lo que estás pensando para nada! ¡Es que me salieron demasiados, nada más!"],
            "ar": ["لا، لا أقصد ذلك! صنعت الكثير فقط!",
                   "لا، لا، ليس هذا ما أقصده! كل ما في الأمر أنني صنعت الكثير!",
                   "لا، لا، ليس هذا ما أقصده أبدًا! كل ما في الأمر أنني صنعت كمية أكبر من اللازم!"],
        },
    },
    {
        "row": "itb-subtitle-053", "line": "3", "text": "这里以前是一座废弃的天文台，我花了一个暑假才收拾干净。", "fenqu": "二次元",
        "summary": "校园动画片段：男生带青梅竹马去看他花一个暑假收拾出来的“秘密基地”。",
        "label": {
            "short": "This used to be an abandoned observatory. It took me all summer to clean.",
            "natural": "This place used to be an abandoned observatory, and it took me a whole summer vacation to clean up.",
            "long": "This place used to be an old abandoned observatory, you know, and it took me my entire summer vacation just to get it all cleaned up.",
        },
        "predictions": {
            "en": ["It was an abandoned observatory. Took me all summer to clean it up.",
                   "This used to be an abandoned observatory. It took me a whole summer break to clean it up.",
                   "This used to be an abandoned observatory, and it took me an entire summer vacation to clean the whole place up."],
            "ja": ["ここ、昔は廃天文台だった。夏休みかけて片付けたんだ。",
                   "ここは昔、使われなくなった天文台だったんだ。夏休みを丸々使って片付けたんだよ。",
                   "ここはね、昔は誰も使わなくなった古い天文台だったんだ。夏休みを丸ごと使って、やっときれいに片付けたんだよ。"],
            "es": "Esto antes era un observatorio abandonado; tardé todo un verano en limpiarlo.",
            "ar": ["كان هذا مرصدًا مهجورًا، واحتجت صيفًا كاملًا لتنظيفه.",
                   "كان هذا المكان في السابق مرصدًا مهجورًا، واستغرق مني تنظيفه عطلة صيفية كاملة.",
                   "كان هذا المكان في السابق مرصدًا فلكيًا قديمًا ومهجورًا، وقد استغرق مني تنظيفه وترتيبه عطلة الصيف كلها تقريبًا."],
        },
    },
    {
        "row": "itb-subtitle-003", "line": "3", "text": "现在的一切都可能消失，包括我们。", "fenqu": "影视",
        "summary": "科幻剧片段：主角想回到过去挽回一场事故，同伴提醒她改变过去的代价。",
        "label": {
            "short": "Everything that exists right now could all vanish, even the two of us.",
            "natural": "Everything that exists right now could disappear forever, and that would include the two of us.",
            "long": "Everything that exists right now could simply disappear forever, and yes, that would include the two of us as well.",
        },
        "predictions": {
            "en": ["Everything now could disappear, even us.",
                   "Everything that exists now could disappear, including the two of us.",
                   "Everything that exists right now could just disappear for good, and that includes the two of us."],
            "ja": ["今あるものは全部消えるかもしれない。僕たちも。",
                   "今あるすべてが消えてしまうかもしれない。僕たちも含めて。",
                   "今ここにあるすべてのものが、跡形もなく消えてしまうかもしれないんだ。僕たち二人も含めて。"],
            "es": ["Todo lo que existe ahora podría desaparecer, incluso nosotros.",
                   "Todo lo que existe ahora mismo podría desaparecer, incluidos nosotros dos.",
                   "Todo lo que existe ahora mismo podría desaparecer para siempre, y eso nos incluye también a nosotros dos."],
            "ar": ["كل ما هو موجود الآن قد يختفي، بما في ذلك نحن.",
                   "كل ما هو موجود الآن قد يختفي تمامًا، بما في ذلك نحن.",
                   "كل ما هو موجود الآن قد يختفي تمامًا، بما في ذلك نحن."],
        },
    },
    {
        "row": "itb-subtitle-007", "line": "2", "text": "北境三座城池，一夜之间全部失守。", "fenqu": "影视",
        "summary": "古装剧片段：边关急报送进宫中，皇帝得知北境失守后召镇国将军入宫。",
        "label": {
            "short": "Three northern cities have all fallen in a single night.",
            "natural": "All three cities along the northern frontier have fallen in a single night.",
            "long": "Your Majesty, all three cities along the northern frontier have fallen in a single night.",
        },
        "predictions": {
            "en": ["Three northern cities fell overnight.",
                   "All three cities in the north fell in a single night.",
                   "All three cities on the northern frontier were lost in just one single night, Your Majesty."],
            "ja": ["北の三つの城が一夜にして落ちました。",
                   "北の三つの城が、一夜ですべて落ちました。",
                   "陛下、北の国境の三つの城が、一夜のうちにすべて陥落しました。"],
            "es": ["Tres ciudades del norte cayeron en una noche.",
                   "Las tres ciudades de la frontera norte cayeron en una sola noche.",
                   "Las tres ciudades amuralladas de la frontera norte han caído todas en una sola noche."],
            "ar": ["سقطت ثلاث مدن شمالية في ليلة واحدة.",
                   "سقطت ثلاث مدن على الحدود الشمالية كلها في ليلة واحدة.",
                   "يا مولاي، سقطت ثلاث مدن محصنة على الحدود الشمالية كلها في ليلة واحدة فقط."],
        },
    },
    {
        "row": "itb-subtitle-055", "line": "2", "text": "怎么这么晚？饭都凉了。", "fenqu": "影视",
        "summary": "家庭剧片段：女儿加班到深夜才回家，妈妈一直留着饭等她。",
        "label": {
            "short": "Why are you so late? Dinner's all cold now.",
            "natural": "Why are you so late tonight? Your dinner has all gone cold.",
            "long": "Why are you home so late tonight? Your dinner has already gone cold.",
        },
        "predictions": {
            "en": "Why so late? The food's cold.",
            "ja": ["遅かったね。ご飯冷めたよ。",
                   "なんでこんなに遅いの？ご飯冷めちゃったよ。",
                   "どうしてこんなに遅くなったの？ご飯もう冷めちゃったよ。"],
            "es": ["¿Tan tarde? Se enfrió la cena.",
                   "¿Por qué tan tarde? La cena ya se enfrió.",
                   "¿Por qué llegas tan tarde? La cena ya se ha enfriado del todo."],
            "ar": ["لماذا تأخرت؟ برد الطعام.",
                   "لماذا تأخرت هكذا؟ لقد برد الطعام.",
                   "لماذا تأخرت إلى هذا الوقت؟ لقد برد العشاء تمامًا."],
        },
    },
    {
        "row": "itb-subtitle-032", "line": "1", "text": "这个项目，我们已经准备了整整三年。", "fenqu": "影视",
        "summary": "职场剧片段：筹备三年的项目突然被叫停，两位合伙人在会议室里争执。",
        "label": {
            "short": "We have spent three whole years getting ready for this project.",
            "natural": "We have spent three whole years getting this project ready, every single day.",
            "long": "We have been working so hard on getting this project ready for three entire years, from start to finish.",
        },
        "predictions": {
            "en": ["Three years we spent on this project.",
                   "We've been preparing this project for three full years.",
                   "We have spent three whole years preparing this project, every single day of it."],
            "ja": ["このプロジェクトに三年かけた。",
                   "このプロジェクトのために、僕たちは丸三年準備してきた。",
                   "このプロジェクトのために、僕たちはもう丸三年も準備を重ねてきたんだ。"],
            "es": ["Llevamos tres años con este proyecto.",
                   "Llevamos tres años enteros preparando este proyecto.",
                   "Llevamos ya tres años enteros preparando este proyecto, día tras día."],
            "ar": ["أعددنا لهذا المشروع ثلاث سنوات.",
                   "لقد قضينا ثلاث سنوات كاملة في التحضير لهذا المشروع.",
                   "لقد قضينا ثلاث سنوات كاملة في التحضير لهذا المشروع خطوة بخطوة."],
        },
    },
    {
        "row": "itb-subtitle-013", "line": "1", "text": "今天带大家逛一下成都的夜市", "fenqu": "旅游出行",
        "summary": "美食旅行vlog：博主带观众逛成都夜市，试吃麻辣兔头。",
        "label": {
            "short": "Today I'm taking all of you around a night market here in Chengdu.",
            "natural": "Today I'm going to take all of you on a little stroll around one of Chengdu's night markets.",
            "long": "Hey guys, today I'm taking all of you for a little stroll around one of the busiest night markets in Chengdu.",
        },
        "predictions": {
            "en": ["Today let's explore Chengdu's night market.",
                   "Today I'm taking you all on a walk through a night market in Chengdu.",
                   "Today I'm going to take all of you on a walk through one of the night markets here in Chengdu."],
            "ja": ["今日は成都の夜市をぶらぶらします。",
                   "今日はみなさんと一緒に成都の夜市をぶらぶら歩いてみます。",
                   "今日はみなさんを連れて、成都のにぎやかな夜市をのんびりぶらぶら歩いてみたいと思います。"],
            "es": ["Hoy os llevo a recorrer un mercado nocturno de Chengdú.",
                   "Hoy os llevo a dar una vuelta por un mercado nocturno de Chengdú.",
                   "Hoy os voy a llevar a dar una vuelta tranquila por uno de los mercados nocturnos de Chengdú."],
            "ar": "اليوم سآخذكم في جولة في سوق ليلي في تشنغدو.",
        },
    },
    {
        "row": "itb-subtitle-040", "line": "2", "text": "最不习惯的，就是每天下午准时来的暴雨", "fenqu": "旅游出行",
        "summary": "旅居vlog：博主在吉隆坡住了一个月，聊天气、出行和吃榴莲。",
        "label": {
            "short": "What I just can't get used to is the daily afternoon downpour.",
            "natural": "What I still can't get used to is the rain that comes every afternoon like clockwork.",
            "long": "The one thing I still can't get used to is the downpour that shows up every afternoon, right on schedule.",
        },
        "predictions": {
            "en": ["The hardest part? The afternoon storms, every day.",
                   "What I'm least used to is the rainstorm that shows up every afternoon on time.",
                   "What I'm least used to is the rainstorm that shows up every afternoon on time."],
            "ja": ["一番慣れないのは、毎日午後の大雨です。",
                   "一番慣れないのは、毎日午後に必ず来る大雨です。",
                   "いちばん慣れないのは、毎日午後になると時間ぴったりに必ず降ってくる、あのものすごい大雨です。"],
            "es": ["Lo que peor llevo es la tormenta de cada tarde.",
                   "Lo que más me cuesta es el aguacero que llega puntual cada tarde.",
                   "A lo que todavía no me acostumbro es al aguacero que llega puntualmente todas las tardes sin falta."],
            "ar": ["أكثر ما لم أعتد عليه هو العاصفة اليومية بعد الظهر.",
                   "أكثر ما لم أعتد عليه حتى الآن هو المطر الغزير الذي يأتي كل يوم بعد الظهر في موعده.",
                   "أكثر ما لم أعتد عليه حتى الآن هو المطر الغزير الذي يأتي كل يوم بعد الظهر في موعده تمامًا دون تأخير."],
        },
    },
    {
        "row": "itb-subtitle-056", "line": "1", "text": "今天是我来巴西的第一天", "fenqu": "旅游出行",
        "summary": "旅行vlog：博主第一次到巴西，当地朋友带他去吃正宗巴西烤肉。",
        "label": {
            "short": "Today's my very first day in Brazil.",
            "natural": "Well, today is my very first day here in Brazil.",
            "long": "So today is officially my very first day here in Brazil.",
        },
        "predictions": {
            "en": ["My first day in Brazil.",
                   "Today is my very first day in Brazil.",
                   "So today is officially my very first day here in Brazil!"],
            "ja": ["ブラジル初日です。",
                   "今日はブラジルに来て初日です。",
                   "今日は、ブラジルに来てちょうど一日目の日です。"],
            "es": "Hoy es mi primer día en Brasil.",
            "ar": ["إنه يومي الأول في البرازيل.",
                   "اليوم هو يومي الأول في البرازيل.",
                   "اليوم هو يومي الأول هنا في البرازيل بالضبط."],
        },
    },
    {
        "row": "itb-subtitle-013", "line": "4", "text": "但是真的很香，我还能再吃三个", "fenqu": "旅游出行",
        "summary": "美食旅行vlog：博主带观众逛成都夜市，试吃麻辣兔头。",
        "label": {
            "short": "But it's really so delicious, I could eat three more of them.",
            "natural": "But honestly it smells amazing, and I could easily eat another three.",
            "long": "But honestly, it's fragrant and delicious, and I could easily eat another three of these.",
        },
        "predictions": {
            "en": "But it's really good, I could eat three more.",
            "ja": ["でも本当にうまい、あと三個いける。",
                   "でも本当にいい香り。まだあと三個は食べられる。",
                   "でも、本当にいい香りでおいしいんです。まだあと三個は余裕で食べられますね。"],
            "es": ["Pero está buenísimo, me comería tres más.",
                   "Pero la verdad es que está buenísimo, me comería otros tres.",
                   "Pero la verdad es que está buenísimo y huele de maravilla, yo me comería otros tres sin problema."],
            "ar": ["لكنه لذيذ جدًا، أستطيع أكل ثلاثة أخرى.",
                   "لكنه لذيذ جدًا حقًا، وأستطيع أن آكل ثلاثة أخرى.",
                   None],
        },
    },
    {
        "row": "itb-subtitle-006", "line": "3", "text": "等等，楼上有脚步声，至少两个人，我先别动", "fenqu": "游戏",
        "summary": "吃鸡游戏实况：主播和队友跳伞落地搜物资，楼上传来敌人的脚步声。",
        "label": {
            "short": "Wait, there are footsteps upstairs, at least two people, so I'm staying put for now.",
            "natural": "Hold on, wait, I can hear footsteps upstairs, and there are at least two of them, so I'm staying put for now.",
            "long": "Hang on, wait a second, I can hear footsteps coming from upstairs, at least two people up there, so I'm not moving just yet.",
        },
        "predictions": {
            "en": ["Wait, footsteps upstairs, at least two. I'll stay still.",
                   "Wait, there are footsteps upstairs, at least two people. I'm not moving yet.",
                   "Hold on, wait, I hear footsteps upstairs, there are at least two of them, so I'm going to stay still for now."],
            "ja": ["待って、上に足音、二人はいる。動かない。",
                   "待って、上に足音がする。二人はいるから、まだ動かない。",
                   "ちょっと待って、上の階から足音が聞こえる。少なくとも二人いるから、しばらく動かないでおく。"],
            "es": ["Espera, pasos arriba, al menos dos. No me muevo.",
                   "Espera, hay pasos en el piso de arriba, al menos dos personas. Yo no me muevo.",
                   None],
            "ar": ["انتظر، هناك خطوات في الأعلى، اثنان على الأقل. لن أتحرك.",
                   "انتظر، أسمع خطوات في الطابق العلوي، شخصان على الأقل، سأبقى مكاني الآن.",
                   "انتظر، أسمع خطوات في الطابق العلوي، شخصان على الأقل، سأبقى مكاني الآن."],
        },
    },
    {
        "row": "itb-subtitle-023", "line": "1", "text": "这波团战我们一定要先手", "fenqu": "游戏",
        "summary": "MOBA游戏实况：五人开黑，团战前商量开团时机，随后推塔打大龙。",
        "label": {
            "short": "We've really got to strike first in this team fight.",
            "natural": "We've absolutely got to make the first move in this team fight.",
            "long": "We absolutely have to be the ones who make the first move in the team fight.",
        },
        "predictions": {
            "en": "We must engage first in this team fight.",
            "ja": ["この集団戦、先手を取るぞ。",
                   "この集団戦、絶対に先に仕掛けよう。",
                   "今回の集団戦は、絶対にこっちから先に仕掛けよう。"],
            "es": ["En esta pelea atacamos primero.",
                   "En esta pelea de equipo tenemos que atacar primero.",
                   "En esta pelea de equipo sí o sí tenemos que ser nosotros los que ataquen primero."],
            "ar": ["في هذه المعركة يجب أن نبدأ أولًا.",
                   "في هذه المعركة الجماعية يجب أن نكون أول من يهاجم.",
                   ""],
        },
    },
    {
        "row": "itb-subtitle-054", "line": "2", "text": "第一阶段很简单，躲开它的冲锋就行", "fenqu": "游戏",
        "summary": "游戏攻略视频：讲解一个两阶段boss的打法，第二阶段要先清小怪。",
        "label": {
            "short": "The first phase is pretty easy, you only need to dodge its charge.",
            "natural": "The first phase is really pretty easy: all you have to do is dodge its charge attack.",
            "long": "The first phase is honestly pretty simple: all you need to do is get out of the way when it charges.",
        },
        "predictions": {
            "en": ["Phase one's easy, just dodge the charge.",
                   "The first phase is easy, just dodge its charge attack and you're fine.",
                   "<think>Target is long, so I should expand a little.</think>The first phase is really simple: all you have to do is dodge its charge attack every time."],
            "ja": ["第一段階は簡単、突進を避けるだけ。",
                   "第一段階は簡単で、突進をよければ大丈夫です。",
                   "第一段階はとても簡単です。突進をちゃんとよければ、それで大丈夫です。"],
            "es": ["La primera fase es fácil: esquiva su embestida.",
                   "La primera fase es muy fácil: solo tienes que esquivar su embestida.",
                   "La primera fase es realmente muy sencilla: lo único que tienes que hacer es esquivar su embestida."],
            "ar": ["المرحلة الأولى سهلة، فقط تفادَ اندفاعه.",
                   "المرحلة الأولى سهلة جدًا، كل ما عليك هو أن تتفادى اندفاعه.",
                   "المرحلة الأولى سهلة جدًا في الحقيقة، وكل ما عليك فعله هو أن تتفادى هجومه المندفع نحوك."],
        },
    },
    {
        "row": "itb-subtitle-043", "line": "3", "text": "对面中单太凶了，我们要小心", "fenqu": "游戏",
        "summary": "MOBA游戏实况：主播玩辅助，开局帮打野拿蓝，最后推掉基地获胜。",
        "label": {
            "short": "Their mid laner's really aggressive. Let's be careful.",
            "natural": "Their mid laner is way too aggressive, so we need to be careful.",
            "long": "The enemy mid laner is really aggressive, so we all need to be careful here.",
        },
        "predictions": {
            "en": ["Their mid is too aggressive, careful.",
                   "Their mid laner is super aggressive, we have to be careful.",
                   "The enemy mid laner is way too aggressive, so we really need to play carefully."],
            "ja": ["相手のミッド強い、気をつけて。",
                   "相手のミッドがかなり強気だから、気をつけよう。",
                   "相手のミッドレーナーがすごく攻めてくるから、みんな本当に気をつけよう。"],
            "es": ["Su medio es muy agresivo, cuidado.",
                   "Su jugador de medio es muy agresivo, hay que tener cuidado.",
                   "El jugador de medio del otro equipo es agresivísimo, así que tenemos que ir con mucho cuidado."],
            "ar": "لاعب الوسط عندهم شرس جدًا، يجب أن نحذر.",
        },
    },
    {
        "row": "itb-subtitle-028", "line": "1", "text": "敦煌莫高窟，开凿于公元四世纪。", "fenqu": "知识",
        "summary": "文化纪录片：介绍敦煌莫高窟的开凿历史、壁画规模和今天面临的保护难题。",
        "label": {
            "short": "The Mogao Caves were carved in the fourth century.",
            "natural": "Dunhuang's Mogao Caves were first carved in the fourth century AD.",
            "long": "The Mogao Caves of Dunhuang were first carved into the cliff face in the fourth century.",
        },
        "predictions": {
            "en": ["Dunhuang's Mogao Caves date from the 4th century.",
                   "The Mogao Caves of Dunhuang were first dug in the fourth century AD.",
                   "The Mogao Caves at Dunhuang were first dug out of the cliff face in the fourth century AD."],
            "ja": ["莫高窟は四世紀に造られた。",
                   "敦煌の莫高窟は、紀元四世紀に掘られ始めました。",
                   "敦煌の莫高窟は、紀元四世紀に初めて掘られ始めました。"],
            "es": ["Las grutas de Mogao se excavaron en el siglo IV.",
                   "Las grutas de Mogao, en Dunhuang, se excavaron en el siglo IV.",
                   "Las grutas de Mogao, en Dunhuang, empezaron a excavarse en la roca allá por el siglo IV de nuestra era."],
            "ar": ["حُفرت كهوف موقاو في القرن الرابع.",
                   "حُفرت كهوف موقاو في دونهوانغ في القرن الرابع الميلادي.",
                   "بدأ حفر كهوف موقاو في دونهوانغ في الصخور في القرن الرابع الميلادي."],
        },
    },
    {
        "row": "itb-subtitle-034", "line": "1", "text": "大熊猫每天要花十几个小时吃竹子。", "fenqu": "知识",
        "summary": "自然纪录片：介绍大熊猫的饮食、睡眠和节省能量的生活方式。",
        "label": {
            "short": "Giant pandas spend over ten hours a day eating bamboo.",
            "natural": "Every day, a giant panda will spend more than ten hours just eating bamboo.",
            "long": "Every single day, a giant panda spends more than ten hours doing nothing but eating bamboo.",
        },
        "predictions": {
            "en": "Giant pandas spend over ten hours a day eating bamboo.",
            "ja": "ジャイアントパンダは毎日十数時間も竹を食べています。",
            "es": ["Los pandas gigantes comen bambú más de diez horas al día.",
                   "Cada día, el panda gigante pasa más de diez horas comiendo bambú.",
                   "Cada día, el panda gigante se pasa más de diez horas sin hacer otra cosa que comer bambú."],
            "ar": [" ",
                   "تقضي الباندا العملاقة أكثر من عشر ساعات كل يوم في أكل الخيزران.",
                   "تقضي الباندا العملاقة كل يوم أكثر من عشر ساعات لا تفعل فيها شيئًا تقريبًا سوى أكل الخيزران."],
        },
    },
    {
        "row": "itb-subtitle-042", "line": "2", "text": "曾经连接着长安与遥远的地中海。", "fenqu": "知识",
        "summary": "历史纪录片：讲述丝绸之路上驼队往来，东西方交换丝绸、瓷器、茶叶与香料。",
        "label": {
            "short": "once linked Chang'an with the distant Mediterranean.",
            "natural": "once connected Chang'an with the distant shores of the Mediterranean.",
            "long": "once connected the city of Chang'an with the distant shores of the Mediterranean.",
        },
        "predictions": {
            "en": ["once linked Chang'an and the Mediterranean.",
                   "once connected Chang'an with the distant Mediterranean.",
                   "once connected the ancient capital Chang'an with the faraway Mediterranean Sea."],
            "ja": ["かつて長安と地中海を結んでいた。",
                   "かつて長安と遠く離れた地中海を結んでいました。",
                   "かつては都の長安と、はるか遠くの地中海とを結んでいました。"],
            "es": ["unió una vez Chang'an con el Mediterráneo.",
                   "unió en su día Chang'an con el lejano Mediterráneo.",
                   "unió en su día la ciudad de Chang'an con las lejanas costas del mar Mediterráneo."],
            "ar": ["ربط يومًا بين تشانغآن والبحر المتوسط.",
                   "كان يربط ذات يوم بين تشانغآن والبحر المتوسط البعيد.",
                   "كان يربط ذات يوم بين مدينة تشانغآن وشواطئ البحر الأبيض المتوسط البعيدة جدًا."],
        },
    },
    {
        "row": "itb-subtitle-039", "line": "1", "text": "红树林生长在海陆交界的潮间带。", "fenqu": "知识",
        "summary": "自然纪录片：介绍红树林的生长环境、潮汐的涨落和林间的小动物。",
        "label": {
            "short": "Mangroves grow in the tidal zone, where the land meets the sea.",
            "natural": "Mangrove forests grow in the intertidal zone, right where the land meets the sea.",
            "long": "Mangrove forests grow in the intertidal zone, the narrow strip of coastline where land and sea meet.",
        },
        "predictions": {
            "en": ["Mangroves grow in the intertidal zone.",
                   "Mangroves grow in the intertidal zone where land meets sea.",
                   "Mangrove forests grow in the intertidal zone, right along the border where land meets the sea."],
            "ja": ["マングローブは潮間帯に育つ。",
                   "マングローブは、海と陸の境にある潮間帯に生えています。",
                   "マングローブの林は、海と陸とが出会う境目にある潮間帯と呼ばれる場所に生えています。"],
            "es": ["Los manglares crecen en la zona intermareal.",
                   "Los manglares crecen en la zona intermareal, donde se unen la tierra y el mar.",
                   "Los manglares crecen en la zona intermareal, esa franja de costa donde la tierra y el mar se encuentran."],
            "ar": ["تنمو أشجار المانغروف في منطقة المد والجزر.",
                   "تنمو غابات المانغروف في منطقة المد والجزر حيث يلتقي البر بالبحر.",
                   "تنمو غابات المانغروف في منطقة المد والجزر، وهي الشريط الساحلي الضيق الذي يلتقي فيه البر بالبحر."],
        },
    },
]


def subtitle_rows() -> tuple[Path, dict[str, dict]]:
    """The InstTrans rows by case_id, from data/test.jsonl when it exists, else the subtitle part."""
    for path in SOURCES:
        if path.exists():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
            return path, {row["case_id"]: row for row in rows}
    raise SystemExit(f"none of {', '.join(str(path) for path in SOURCES)} exists")


def line_context(entry: dict, rows: dict[str, dict], source_path: Path) -> tuple[str, float, str, str]:
    """(text, duration, up_context, down_context) of the line an entry names, checked against LINES."""
    row = rows.get(entry["row"])
    if row is None:
        raise SystemExit(f"{source_path}: no row {entry['row']}")
    lines = json.loads(row["source_text"])
    text = lines.get(entry["line"])
    if text != entry["text"]:
        raise SystemExit(f"{source_path}: {entry['row']} line {entry['line']} is now {text!r}, "
                         f"LINES expects {entry['text']!r}; update LINES (and its translations)")
    index = int(entry["line"])
    duration = row["duration_s"][index - 1]
    return text, duration, lines.get(str(index - 1), ""), lines.get(str(index + 1), "")


def build() -> tuple[list[dict], list[dict], Path]:
    """(data rows, prediction lines, the InstTrans file they came from)."""
    source_path, rows = subtitle_rows()
    data, predictions = [], []
    for entry in LINES:
        text, duration, up, down = line_context(entry, rows, source_path)
        line_uuid = str(uuid.uuid5(UUID_NAMESPACE, f"{entry['row']}#{entry['line']}"))
        for lang in SPEECH_RATES:
            answers = entry["predictions"][lang]
            answers = [answers] * 3 if isinstance(answers, str) else answers
            targets = target_syllables(duration, lang)
            for kind, answer in zip(TARGET_KINDS, answers):
                meta = {"uuid": line_uuid, "fenqu": entry["fenqu"], "duration": duration, "target_language": lang,
                        "target_syllables": targets[kind], "target_kind": kind, "source": text,
                        "summary": entry["summary"], "up_context": up, "down_context": down}
                case_id = f"{line_uuid}:{lang}:{kind}"
                label = entry["label"][kind] if lang == "en" else None
                data.append({"case_id": case_id, "prompt": render_messages(meta), "label": label, "metadata": meta})
                predictions.append({"case_id": case_id, "prediction": answer})
    _, warnings = validate_sandglass_rows([(f"row {index}", row) for index, row in enumerate(data, 1)])
    if warnings:  # the bundled set stays strict: a data warning is a build error here
        raise SystemExit("\n".join(f"{w['where']}: {w['message']}" for w in warnings))
    return data, predictions, source_path


def jsonl(objects: list[dict]) -> str:
    return "".join(json.dumps(value, ensure_ascii=False) + "\n" for value in objects)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the bundled Sandglass set and its example predictions.")
    parser.add_argument("--check", action="store_true", help="exit 1 when the files differ from a rebuild")
    args = parser.parse_args(argv)
    data, predictions, source_path = build()
    outputs = {DATA_PATH: jsonl(data), PREDICTIONS_PATH: jsonl(predictions)}
    if args.check:
        stale = [path for path, text in outputs.items()
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python -m scripts.build_sandglass", file=sys.stderr)
        return 1 if stale else 0
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in outputs.items():
        path.write_text(text, encoding="utf-8", newline="\n")
    missing = sum(1 for line in predictions if not (line["prediction"] or "").strip())
    print(f"from {source_path.relative_to(ROOT)}: {len(LINES)} lines -> {len(data)} rows, "
          f"{len(predictions)} predictions ({missing} missing)")
    print(f"{DATA_PATH.relative_to(ROOT)} sha256 {file_sha256(DATA_PATH)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
