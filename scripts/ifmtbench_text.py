"""The instruction wording of the bundled IFMTBench set, in its seven instruction languages.

Written by the harness team for scripts/build_ifmtbench.py (not taken from the release). Every
prompt is assembled from these blocks: the task line, one block per label, then the source text.
"""

from __future__ import annotations

LANGS = ("zh", "en", "ja", "ko", "fr", "de", "es")

# LANGUAGE_NAMES[instruction language][language]: how a prompt in that language names it.
LANGUAGE_NAMES = {
    "zh": {"zh": "中文", "en": "英语", "ja": "日语", "ko": "韩语", "fr": "法语", "de": "德语", "es": "西班牙语"},
    "en": {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean", "fr": "French", "de": "German",
           "es": "Spanish"},
    "ja": {"zh": "中国語", "en": "英語", "ja": "日本語", "ko": "韓国語", "fr": "フランス語", "de": "ドイツ語",
           "es": "スペイン語"},
    "ko": {"zh": "중국어", "en": "영어", "ja": "일본어", "ko": "한국어", "fr": "프랑스어", "de": "독일어", "es": "스페인어"},
    "fr": {"zh": "chinois", "en": "anglais", "ja": "japonais", "ko": "coréen", "fr": "français", "de": "allemand",
           "es": "espagnol"},
    "de": {"zh": "Chinesisch", "en": "Englisch", "ja": "Japanisch", "ko": "Koreanisch", "fr": "Französisch",
           "de": "Deutsch", "es": "Spanisch"},
    "es": {"zh": "chino", "en": "inglés", "ja": "japonés", "ko": "coreano", "fr": "francés", "de": "alemán",
           "es": "español"},
}

TASK = {
    "zh": "请将以下文本翻译为{target}，只输出译文，不要添加任何解释。",
    "en": "Translate the following text into {target}. Output only the translation, without any explanation.",
    "ja": "以下のテキストを{target}に翻訳してください。訳文のみを出力し、説明は加えないでください。",
    "ko": "다음 텍스트를 {target}로 번역하세요. 설명 없이 번역문만 출력하세요.",
    "fr": "Traduisez le texte suivant en {target}. Ne donnez que la traduction, sans aucune explication.",
    "de": "Übersetzen Sie den folgenden Text in die Zielsprache {target}. Geben Sie nur die Übersetzung aus, "
          "ohne Erklärungen.",
    "es": "Traduce el siguiente texto al {target}. Devuelve solo la traducción, sin explicaciones.",
}

SOURCE_HEADER = {
    "zh": "【待翻译文本】", "en": "[Source text]", "ja": "【原文】", "ko": "[원문]", "fr": "[Texte source]",
    "de": "[Ausgangstext]", "es": "[Texto de origen]",
}

GLOSSARY = {
    "zh": "请严格使用以下术语表中的译法（列出多个译法时任选其一）：",
    "en": "Use the translations in this glossary exactly (where several are listed, use one of them):",
    "ja": "以下の用語集の訳語を必ず使用してください（複数ある場合はいずれか一つ）：",
    "ko": "다음 용어집의 번역어를 반드시 사용하세요(여러 개가 있으면 그중 하나):",
    "fr": "Utilisez strictement les traductions de ce glossaire (si plusieurs sont proposées, choisissez-en une) :",
    "de": "Verwenden Sie genau die Übersetzungen aus diesem Glossar (bei mehreren Angaben eine davon):",
    "es": "Usa exactamente las traducciones de este glosario (si hay varias, elige una):",
}

STYLE = {
    "zh": "译文风格必须严格符合【{style}】。",
    "en": "The translation must strictly follow this style: [{style}].",
    "ja": "訳文のスタイルは【{style}】に厳密に従ってください。",
    "ko": "번역문은 반드시 [{style}] 스타일을 따라야 합니다.",
    "fr": "La traduction doit respecter strictement le style suivant : [{style}].",
    "de": "Die Übersetzung muss sich strikt an diesen Stil halten: [{style}].",
    "es": "La traducción debe ajustarse estrictamente a este estilo: [{style}].",
}

BACKGROUND = {
    "zh": ("【背景信息】", "请结合背景信息进行翻译。"),
    "en": ("[Background]", "Take this background into account when translating."),
    "ja": ("【背景情報】", "背景情報を踏まえて翻訳してください。"),
    "ko": ("[배경 정보]", "배경 정보를 고려하여 번역하세요."),
    "fr": ("[Contexte]", "Tenez compte de ce contexte pour traduire."),
    "de": ("[Hintergrund]", "Berücksichtigen Sie diesen Hintergrund bei der Übersetzung."),
    "es": ("[Contexto]", "Ten en cuenta este contexto al traducir."),
}

LAYOUT = {
    "zh": "原文以分隔符 {delimiter} 分段。译文必须在对应位置保留同样数量的分隔符，不得遗漏、转义或翻译该符号。",
    "en": "The source is split by the delimiter {delimiter}. Keep exactly the same number of delimiters in the same "
          "places; never drop, escape or translate them.",
    "ja": "原文は区切り記号 {delimiter} で区切られています。訳文でも同じ数の区切り記号を同じ位置に残し、省略・エスケープ・"
          "翻訳しないでください。",
    "ko": "원문은 구분자 {delimiter} 기준으로 나뉘어 있습니다. 번역문에도 같은 수의 구분자를 같은 위치에 유지하고, 생략하거나 "
          "이스케이프하거나 번역하지 마세요.",
    "fr": "Le texte source est découpé par le séparateur {delimiter}. Conservez exactement le même nombre de "
          "séparateurs aux mêmes endroits, sans les omettre, les échapper ni les traduire.",
    "de": "Der Ausgangstext ist durch das Trennzeichen {delimiter} gegliedert. Behalten Sie genau gleich viele "
          "Trennzeichen an denselben Stellen bei; lassen Sie keines weg und maskieren oder übersetzen Sie sie nicht.",
    "es": "El texto de origen está dividido por el separador {delimiter}. Conserva exactamente el mismo número de "
          "separadores en los mismos lugares, sin omitirlos, escaparlos ni traducirlos.",
}

# How a layout prompt names a line break, which cannot be shown between quotes.
LINE_BREAK = {"zh": "换行符", "en": "line break", "ja": "改行", "ko": "줄바꿈", "fr": "saut de ligne",
              "de": "Zeilenumbruch", "es": "salto de línea"}

STRUCTURED = {
    "zh": "原文是 {fmt} 格式的数据。保持数据结构、层级和缩进完全不变；只翻译面向用户的文本，不得翻译或修改键名、标签、属性和"
          "变量占位符。",
    "en": "The source is {fmt} data. Keep its structure, nesting and indentation exactly as they are; translate only "
          "the user-facing text and never translate or alter keys, tags, attributes or placeholders.",
    "ja": "原文は {fmt} 形式のデータです。構造・階層・インデントはそのまま保ち、ユーザーに表示されるテキストのみを翻訳してください。"
          "キー、タグ、属性、プレースホルダーは翻訳・変更しないでください。",
    "ko": "원문은 {fmt} 형식의 데이터입니다. 구조, 계층, 들여쓰기를 그대로 유지하고 사용자에게 보이는 텍스트만 번역하세요. 키, "
          "태그, 속성, 플레이스홀더는 번역하거나 바꾸지 마세요.",
    "fr": "Le texte source est au format {fmt}. Conservez exactement sa structure, son imbrication et son "
          "indentation ; ne traduisez que le texte visible par l'utilisateur, jamais les clés, balises, attributs ou "
          "variables.",
    "de": "Der Ausgangstext liegt im Format {fmt} vor. Behalten Sie Struktur, Verschachtelung und Einrückung exakt "
          "bei; übersetzen Sie nur den für Nutzer sichtbaren Text, niemals Schlüssel, Tags, Attribute oder "
          "Platzhalter.",
    "es": "El texto de origen está en formato {fmt}. Conserva exactamente su estructura, anidación y sangría; traduce "
          "solo el texto visible para el usuario y nunca claves, etiquetas, atributos ni marcadores de posición.",
}

INLINE_CODE = {
    "zh": "文中的代码片段、命令、文件名和变量占位符必须原样保留，不得翻译或改动。",
    "en": "Keep every code snippet, command, file name and variable placeholder exactly as it is; do not translate or "
          "change them.",
    "ja": "文中のコード、コマンド、ファイル名、変数プレースホルダーはそのまま残し、翻訳・変更しないでください。",
    "ko": "코드, 명령어, 파일 이름, 변수 플레이스홀더는 그대로 두고 번역하거나 바꾸지 마세요.",
    "fr": "Conservez tels quels les extraits de code, commandes, noms de fichiers et variables ; ne les traduisez pas "
          "et ne les modifiez pas.",
    "de": "Behalten Sie Codeausschnitte, Befehle, Dateinamen und Platzhalter unverändert bei; übersetzen oder "
          "verändern Sie sie nicht.",
    "es": "Mantén intactos los fragmentos de código, comandos, nombres de archivo y marcadores de posición; no los "
          "traduzcas ni los modifiques.",
}

CODE_TAG = {
    "zh": "保留文中所有标签（HTML、XML 或 BBCode）及其属性，原样不动，只翻译标签之间的文字。",
    "en": "Keep every tag (HTML, XML or BBCode) and its attributes exactly as it is; translate only the text between "
          "the tags.",
    "ja": "タグ（HTML、XML、BBCode）とその属性はそのまま残し、タグの間のテキストだけを翻訳してください。",
    "ko": "모든 태그(HTML, XML, BBCode)와 속성을 그대로 유지하고 태그 사이의 텍스트만 번역하세요.",
    "fr": "Conservez telles quelles toutes les balises (HTML, XML ou BBCode) et leurs attributs ; ne traduisez que le "
          "texte entre les balises.",
    "de": "Behalten Sie alle Tags (HTML, XML oder BBCode) samt Attributen unverändert bei; übersetzen Sie nur den Text "
          "zwischen den Tags.",
    "es": "Conserva intactas todas las etiquetas (HTML, XML o BBCode) y sus atributos; traduce solo el texto entre "
          "ellas.",
}

# STYLES[style key][instruction language]: the style as the prompt (and selected_style) names it.
STYLES = {
    "formal_business": {"zh": "正式商务", "en": "formal business", "ja": "丁寧なビジネス文体", "ko": "격식 있는 비즈니스",
                        "fr": "registre professionnel soutenu", "de": "förmlicher Geschäftsstil",
                        "es": "formal de negocios"},
    "casual": {"zh": "轻松口语化", "en": "casual and conversational", "ja": "くだけた話し言葉", "ko": "편안한 구어체",
               "fr": "familier et détendu", "de": "locker und umgangssprachlich", "es": "coloquial y relajado"},
    "marketing": {"zh": "有感染力的营销文案", "en": "punchy marketing copy", "ja": "訴求力のある広告コピー",
                  "ko": "호소력 있는 광고 카피", "fr": "accroche marketing percutante", "de": "mitreißender Werbetext",
                  "es": "texto publicitario persuasivo"},
    "child": {"zh": "适合儿童的亲切语气", "en": "warm and simple, for children", "ja": "子ども向けのやさしい語り口",
              "ko": "아이들을 위한 다정하고 쉬운 말투", "fr": "chaleureux et simple, pour les enfants",
              "de": "warm und einfach, für Kinder", "es": "cálido y sencillo, para niños"},
    "polite_service": {"zh": "礼貌周到的客服语气", "en": "courteous customer-service tone",
                       "ja": "丁寧なカスタマーサポートの口調", "ko": "정중한 고객 상담 말투",
                       "fr": "ton courtois de service client", "de": "höflicher Kundenservice-Ton",
                       "es": "tono cortés de atención al cliente"},
    "concise_ui": {"zh": "简洁的界面文案", "en": "concise UI copy", "ja": "簡潔なUI文言", "ko": "간결한 UI 문구",
                   "fr": "libellé d'interface concis", "de": "knapper UI-Text", "es": "texto de interfaz conciso"},
    "literary": {"zh": "文学性、富有诗意", "en": "literary and lyrical", "ja": "文学的で詩的な文体",
                 "ko": "문학적이고 서정적인", "fr": "littéraire et lyrique", "de": "literarisch und lyrisch",
                 "es": "literario y lírico"},
    "legal": {"zh": "严谨的法律文书", "en": "precise legal drafting", "ja": "厳密な法律文書の文体",
              "ko": "엄밀한 법률 문서", "fr": "rédaction juridique rigoureuse", "de": "präzise juristische Sprache",
              "es": "redacción jurídica precisa"},
}
